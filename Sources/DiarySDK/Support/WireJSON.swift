import Foundation

/// Decoding of the SDK's JSON wire format, with the same results as `JSONDecoder.diary()`.
///
/// The HTTP backend decodes every response through it. It scans the document once into a flat list of values
/// (``WireDocument``) and runs the type's own `Decodable` conformance over that (``WireValueDecoder``): the same
/// declarations `JSONDecoder` reads, with member names compared as bytes instead of through a dictionary per object
/// and dates read without a strategy closure (docs/PERFORMANCE.md, "HTTP backend", says why the backend needs a faster
/// decoder than `JSONDecoder` on Linux). Anything it does not handle the way `JSONDecoder` would (a missing key, an
/// unusual number form, a repeated or escaped key, a value of the wrong type) makes it give up, and
/// `JSONDecoder.diary()` decodes the document instead, so values and errors are always exactly `JSONDecoder`'s.
@_spi(Engine)
public enum WireJSON {
    /// Decodes a value of the SDK's wire format.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON document.
    /// - Returns: The value `JSONDecoder.diary()` would return.
    /// - Throws: The error `JSONDecoder.diary()` would throw.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        if let value = try? fastDecode(type, from: data) { return value }
        return try JSONDecoder.diary().decode(type, from: data)
    }

    /// The fast path alone: the value, or ``WireReaderGaveUp`` saying why it left the document to `JSONDecoder`.
    package static func fastDecode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let document = try WireDocument(data)
        do {
            return try document.decode(type, at: 0)
        } catch let error as WireReaderGaveUp {
            throw error
        } catch {
            // The type's own decoding refused the value (an invalid id, an unknown enum case): JSONDecoder says so.
            throw WireReaderGaveUp(position: 0, reason: "\(error)")
        }
    }
}
