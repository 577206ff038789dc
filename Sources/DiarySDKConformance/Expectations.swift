@_spi(Engine) import DiarySDK
import Foundation

func expect(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) throws {
    if !condition { throw ConformanceFailure(message: message(), file: "\(file)", line: line) }
}

func expectEqual<T: Equatable>(
    _ actual: T, _ expected: T, _ message: @autoclosure () -> String = "", file: StaticString = #fileID,
    line: UInt = #line
) throws {
    if actual != expected {
        let note = message()
        throw ConformanceFailure(
            message: "expected \(expected), got \(actual)\(note.isEmpty ? "" : " — \(note)")", file: "\(file)", line: line)
    }
}

/// The value, or a failure naming what was missing.
func expectSome<T>(_ value: T?, _ what: String, file: StaticString = #fileID, line: UInt = #line) throws -> T {
    guard let value else { throw ConformanceFailure(message: "expected \(what), got nothing", file: "\(file)", line: line) }
    return value
}

/// Runs `body` and requires it to throw a `DiaryError` with `code` (and `field`, when given).
@discardableResult
func expectError<T>(
    _ code: DiaryError.Code, field: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ body: () async throws -> T
) async throws -> DiaryError {
    do {
        let value = try await body()
        throw ConformanceFailure(message: "expected \(code) error, got \(value)", file: "\(file)", line: line)
    } catch let error as DiaryError {
        guard error.code == code else {
            throw ConformanceFailure(message: "expected \(code) error, got \(error)", file: "\(file)", line: line)
        }
        if let field, error.field != field {
            throw ConformanceFailure(
                message: "expected field \(field), got \(error.field ?? "none") (\(error))", file: "\(file)", line: line)
        }
        return error
    }
}

/// Every item of every page of a listing, failing on a repeated id.
func collectAll<Item: Sendable & Identifiable>(
    size: Int = 2, file: StaticString = #fileID, line: UInt = #line,
    _ fetch: @escaping @Sendable (PageRequest) async throws -> Page<Item>
) async throws -> [Item] where Item.ID: Sendable {
    var items: [Item] = []
    var seen = Set<AnyHashable>()
    for try await page in PageSequence(first: .first(size: size), fetch: fetch) {
        for item in page.items {
            try expect(seen.insert(AnyHashable(item.id)).inserted, "item \(item.id) repeated across pages", file: file, line: line)
            items.append(item)
        }
    }
    return items
}

func day(_ text: String) -> LocalDate { LocalDate(text)! }

func month(_ text: String) -> YearMonth { YearMonth(text)! }

func instant(_ text: String) -> Date { WireDate.date(from: text)! }
