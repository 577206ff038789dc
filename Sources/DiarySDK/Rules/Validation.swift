import Foundation

/// The input rules every backend enforces, in one place: lengths, formats and counts.
///
/// Each check throws ``DiaryError`` `.invalidInput` naming the field and the reason. The functions return the
/// normalised value (trimmed text, lowercased email, de-duplicated tags) to store.
public enum Validation {
    /// Most images a post or entry may carry.
    public static let maximumImages = 4
    /// Longest title, in characters.
    public static let maximumTitleLength = 100
    /// Longest entry or post body, in characters.
    public static let maximumBodyLength = 20_000
    /// Longest comment, in characters.
    public static let maximumCommentLength = 1_000
    /// Longest bio, in characters.
    public static let maximumBioLength = 200
    /// Most tags on an entry or post.
    public static let maximumTags = 10
    /// Longest tag, in characters.
    public static let maximumTagLength = 30
    /// Shortest nickname.
    public static let minimumNicknameLength = 2
    /// Longest nickname.
    public static let maximumNicknameLength = 20
    /// Shortest password.
    public static let minimumPasswordLength = 8
    /// Longest email address (RFC 5321).
    public static let maximumEmailLength = 254
    /// Largest attachment, in bytes (10 MiB).
    public static let maximumAttachmentBytes = 10 * 1024 * 1024
    /// Longest report detail.
    public static let maximumReportDetailLength = 1_000

    /// Trims text and checks it is not blank and not too long.
    /// - Parameters:
    ///   - text: The text.
    ///   - field: The field name for the error.
    ///   - maximum: The longest allowed length.
    ///   - allowEmpty: Accept empty text (after trimming).
    /// - Returns: The trimmed text.
    /// - Throws: `.invalidInput` with reason `.blank` or `.tooLong`.
    public static func text(_ text: String, field: String, maximum: Int, allowEmpty: Bool = false) throws -> String {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if trimmed.isEmpty && !allowEmpty {
            throw DiaryError.invalid(field, .blank, "\(field) must not be blank")
        }
        if trimmed.count > maximum {
            throw DiaryError.invalid(field, .tooLong, "\(field) is \(trimmed.count) characters; the limit is \(maximum)")
        }
        return trimmed
    }

    /// Checks a nickname: 2–20 letters (any script), digits, `_` or `.`, not starting with `.`.
    ///
    /// The nickname is NFKC-normalised first, so full-width and other compatibility forms (`ｕｎｉ`) become their
    /// plain letters (`uni`). Uniqueness is decided on ``nicknameKey(_:)``, which also folds case and look-alike
    /// letters.
    /// - Parameter nickname: The nickname.
    /// - Returns: The trimmed, NFKC-normalised nickname.
    /// - Throws: `.invalidInput` on `nickname`.
    public static func nickname(_ nickname: String) throws -> String {
        let trimmed = try text(
            nickname.precomposedStringWithCompatibilityMapping, field: "nickname", maximum: maximumNicknameLength)
        guard trimmed.count >= minimumNicknameLength else {
            throw DiaryError.invalid(
                "nickname", .tooShort, "nickname must be at least \(minimumNicknameLength) characters")
        }
        let allowed = trimmed.unicodeScalars.allSatisfy {
            CharacterSet.letters.contains($0) || CharacterSet.decimalDigits.contains($0) || $0 == "_" || $0 == "."
        }
        guard allowed, !trimmed.hasPrefix(".") else {
            throw DiaryError.invalid(
                "nickname", .invalidFormat, "nickname may contain only letters, digits, '_' and '.', not starting with '.'")
        }
        return trimmed
    }

    /// Checks an email address's form (`local@domain.tld`) and lowercases it.
    /// - Parameter email: The address.
    /// - Returns: The trimmed, lowercased address.
    /// - Throws: `.invalidInput` on `email`.
    public static func email(_ email: String) throws -> String {
        let trimmed = try text(email, field: "email", maximum: maximumEmailLength).lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        let invalid = DiaryError.invalid("email", .invalidFormat, "'\(trimmed)' is not an email address")
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { throw invalid }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }),
            let tld = labels.last, tld.count >= 2
        else { throw invalid }
        let localAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.!#$%&'*+/=?^_`{|}~-")
        let domainAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard parts[0].unicodeScalars.allSatisfy(localAllowed.contains), !parts[0].hasPrefix("."),
            !parts[0].hasSuffix("."), !parts[0].contains(".."),
            domain.unicodeScalars.allSatisfy(domainAllowed.contains)
        else { throw invalid }
        return trimmed
    }

    /// Checks a password's length.
    /// - Parameter password: The password.
    /// - Throws: `.invalidInput` on `password`.
    public static func password(_ password: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw DiaryError.invalid(
                "password", .tooShort, "password must be at least \(minimumPasswordLength) characters")
        }
        guard password.count <= 256 else {
            throw DiaryError.invalid("password", .tooLong, "password must be at most 256 characters")
        }
    }

    /// Trims tags, drops a leading `#`, removes duplicates (keeping order), and checks count and length.
    /// - Parameter tags: The tags.
    /// - Returns: The normalised tags.
    /// - Throws: `.invalidInput` on `tags`.
    public static func tags(_ tags: [String]) throws -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for tag in tags {
            var trimmed = tag.trimmingWhitespaceAndNewlines()
            while trimmed.hasPrefix("#") { trimmed.removeFirst() }
            guard !trimmed.isEmpty else { throw DiaryError.invalid("tags", .blank, "a tag must not be blank") }
            guard trimmed.count <= maximumTagLength else {
                throw DiaryError.invalid("tags", .tooLong, "tag '\(trimmed)' is longer than \(maximumTagLength) characters")
            }
            if seen.insert(trimmed.lowercased()).inserted { result.append(trimmed) }
        }
        guard result.count <= maximumTags else {
            throw DiaryError.invalid("tags", .tooMany, "\(result.count) tags; the limit is \(maximumTags)")
        }
        return result
    }

    /// Checks the number of images.
    /// - Parameter images: The images.
    /// - Throws: `.invalidInput` on `images` with reason `.tooMany`.
    public static func images(_ images: [ImageReference]) throws {
        guard images.count <= maximumImages else {
            throw DiaryError.invalid("images", .tooMany, "\(images.count) images; the limit is \(maximumImages)")
        }
        guard Set(images.map(\.id)).count == images.count else {
            throw DiaryError.invalid("images", .notAllowed, "the same image is attached twice")
        }
    }

    /// Checks a mood emoticon: 1–8 characters, not blank.
    /// - Parameter mood: The mood.
    /// - Returns: The trimmed mood.
    /// - Throws: `.invalidInput` on `mood`.
    public static func mood(_ mood: Mood?) throws -> Mood? {
        guard let mood else { return nil }
        return Mood(rawValue: try text(mood.rawValue, field: "mood", maximum: 8))
    }

    /// Checks a `#RRGGBB` colour.
    /// - Parameter color: The colour.
    /// - Returns: The colour in uppercase.
    /// - Throws: `.invalidInput` on `coverColor`.
    public static func color(_ color: String) throws -> String {
        let upper = color.trimmingCharacters(in: .whitespaces).uppercased()
        guard upper.count == 7, upper.hasPrefix("#"), upper.dropFirst().allSatisfy(\.isHexDigit) else {
            throw DiaryError.invalid("coverColor", .invalidFormat, "'\(color)' is not a #RRGGBB colour")
        }
        return upper
    }

    /// Checks a web address: absolute `http` or `https` with a host.
    /// - Parameters:
    ///   - url: The address.
    ///   - field: The field name for the error.
    /// - Throws: `.invalidInput` with reason `.invalidFormat`.
    public static func webURL(_ url: URL, field: String) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw DiaryError.invalid(field, .invalidFormat, "'\(url.absoluteString)' is not an http(s) address")
        }
    }

    /// Parses what a user typed as a web address, adding `https://` when the scheme is missing.
    /// - Parameters:
    ///   - text: What the user typed.
    ///   - field: The field name for the error.
    /// - Returns: The address.
    /// - Throws: `.invalidInput` with reason `.blank` or `.invalidFormat`.
    public static func webURL(fromUserInput text: String, field: String) throws -> URL {
        let trimmed = try Validation.text(text, field: field, maximum: 2048)
        let withScheme = trimmed.contains("://") ? trimmed : "https://" + trimmed
        guard !trimmed.contains(" "), let url = URL(string: withScheme) else {
            throw DiaryError.invalid(field, .invalidFormat, "'\(trimmed)' is not a web address")
        }
        try webURL(url, field: field)
        return url
    }
}
