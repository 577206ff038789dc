import ArgumentParser
import DiarySDK
import Foundation

// Values checked while the command line is parsed, so a bad one is reported with the subcommand's usage (exit 2)
// before anything is opened. Each parser is an `@Option(transform:)`/`@Argument(transform:)` closure; its error's
// description is what ArgumentParser prints after "The value 'x' is invalid for '--option <value>':".

/// Why a command-line value was refused.
struct ArgumentProblem: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

enum Parse {
    /// A calendar day, `yyyy-MM-dd`, that exists (2026-02-30 does not).
    static func day(_ text: String) throws -> LocalDate {
        guard let day = LocalDate(text) else { throw ArgumentProblem("not a day of the calendar (yyyy-MM-dd)") }
        return day
    }

    /// A month, `yyyy-MM`.
    static func month(_ text: String) throws -> YearMonth {
        guard let month = YearMonth(text) else { throw ArgumentProblem("not a month (yyyy-MM)") }
        return month
    }

    /// An entry's visibility.
    static func visibility(_ text: String) throws -> Diary.Visibility {
        guard let visibility = Diary.Visibility(rawValue: text.lowercased()) else {
            throw ArgumentProblem("visibility is private, members or shared")
        }
        return visibility
    }

    /// The named moods, in the order help lists them.
    static let namedMoods: [(name: String, mood: Mood)] = [
        ("happy", .happy), ("sad", .sad), ("angry", .angry), ("calm", .calm), ("tired", .tired),
    ]

    /// The allowed moods as help and errors list them.
    static let moodList =
        namedMoods.map { "\($0.name) \($0.mood.rawValue)" }.joined(separator: ", ") + ", or any other single emoji"

    /// A mood: one of the named moods (by name or emoji), or one emoji (a calendar cell has room for one).
    static func mood(_ text: String) throws -> Mood {
        if let named = namedMoods.first(where: { $0.name == text.lowercased() }) { return named.mood }
        guard text.count == 1, let character = text.first, character.isSingleEmoji else {
            throw ArgumentProblem("a mood is one of \(moodList)")
        }
        return Mood(rawValue: text)
    }

    /// A report's reason.
    static func reportReason(_ text: String) throws -> ReportReason {
        guard let reason = ReportReason(rawValue: text.lowercased()) else {
            throw ArgumentProblem("a reason is one of \(ReportReason.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return reason
    }

    /// An id, or the first characters of one (at least 4 hexadecimal digits), as `git` takes a commit.
    static func id(_ text: String) throws -> IDPrefix {
        guard let prefix = IDPrefix(text) else {
            throw ArgumentProblem(
                "an id is a UUID, or its first characters (at least \(IDPrefix.minimumDigits) hexadecimal digits)")
        }
        return prefix
    }

    /// A user: an id, an id prefix, a nickname (optionally with `@`) or `me`.
    static func user(_ text: String) throws -> UserReference {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != "@" else { throw ArgumentProblem("give a nickname, an id or 'me'") }
        return UserReference(text: trimmed)
    }
}

/// An id as typed: a whole UUID or a unique prefix of one.
struct IDPrefix: Sendable, CustomStringConvertible {
    static let minimumDigits = 4

    /// The lowercase hexadecimal digits typed, without dashes.
    let digits: String
    /// What was typed.
    let description: String

    init?(_ text: String) {
        let lower = text.lowercased()
        guard lower.count <= 36, lower.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let digits = lower.filter(\.isHexDigit)
        guard digits.count >= Self.minimumDigits, digits.count <= 32 else { return nil }
        (self.digits, self.description) = (digits, lower)
    }

    /// The full id when all 32 digits were given.
    func fullID<Entity>(as _: Entity.Type) -> EntityID<Entity>? {
        digits.count == 32 ? EntityID<Entity>(Self.dashed(digits)) : nil
    }

    /// Whether an id starts with these digits.
    func matches<Entity>(_ id: EntityID<Entity>) -> Bool {
        id.description.filter(\.isHexDigit).hasPrefix(digits)
    }

    private static func dashed(_ digits: String) -> String {
        var text = ""
        for (index, character) in digits.enumerated() {
            if [8, 12, 16, 20].contains(index) { text.append("-") }
            text.append(character)
        }
        return text
    }
}

/// A user as typed: resolved by ``Session/user(_:)``.
struct UserReference: Sendable, CustomStringConvertible {
    let text: String
    var description: String { text }
}

extension Character {
    /// Whether this character is one emoji as a terminal draws it (emoji presentation, or text presentation turned
    /// into emoji by U+FE0F, or a flag or keycap sequence).
    var isSingleEmoji: Bool {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return false }
        if first.properties.isEmojiPresentation { return true }
        if first.properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x20E3 }) { return true }
        return (0x1F1E6...0x1F1FF).contains(first.value) && scalars.count == 2
    }
}

/// A short form of an id for tables: its first 8 digits, enough to be unique in a person's data and accepted back
/// as an id prefix.
func shortID<Entity>(_ id: EntityID<Entity>) -> String {
    String(id.description.prefix(8))
}
