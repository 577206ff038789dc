import Foundation

extension Validation {
    /// The key two nicknames are compared by for uniqueness: NFKC-normalised, with Cyrillic and Greek letters that
    /// look Latin replaced by the Latin letter, then lowercased.
    ///
    /// `ｕｎｉ` (full-width), `Uni`, `unі` (Cyrillic `і`) and `υni` (Greek `υ`) all have the key `uni`, so once one of
    /// them is taken the others are too. The mapping covers the common look-alikes (Unicode's confusables for the
    /// Latin alphabet from Cyrillic and Greek); it is not the full UTS #39 table.
    /// - Parameter nickname: A nickname (valid or not).
    /// - Returns: Its comparison key.
    public static func nicknameKey(_ nickname: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in nickname.precomposedStringWithCompatibilityMapping.unicodeScalars {
            scalars.append(latinLookalikes[scalar.value].flatMap(Unicode.Scalar.init) ?? scalar)
        }
        return String(scalars).lowercased()
    }

    /// Cyrillic and Greek letters (both cases) that render like a Latin letter, mapped to that letter.
    private static let latinLookalikes: [UInt32: UInt32] = {
        let pairs: [(Character, Character)] = [
            // Cyrillic capitals
            ("А", "A"), ("В", "B"), ("Е", "E"), ("К", "K"), ("М", "M"), ("Н", "H"), ("О", "O"), ("Р", "P"),
            ("С", "C"), ("Т", "T"), ("Х", "X"), ("У", "Y"), ("Ѕ", "S"), ("І", "I"), ("Ј", "J"), ("Ԁ", "D"),
            ("Ԛ", "Q"), ("Ԝ", "W"), ("Һ", "H"), ("Ү", "Y"), ("Ӏ", "I"),
            // Cyrillic small letters
            ("а", "a"), ("е", "e"), ("о", "o"), ("р", "p"), ("с", "c"), ("у", "y"), ("х", "x"), ("ѕ", "s"),
            ("і", "i"), ("ј", "j"), ("һ", "h"), ("ԁ", "d"), ("ԛ", "q"), ("ԝ", "w"), ("ӏ", "l"), ("ү", "y"),
            ("ɡ", "g"),
            // Greek capitals
            ("Α", "A"), ("Β", "B"), ("Ε", "E"), ("Ζ", "Z"), ("Η", "H"), ("Ι", "I"), ("Κ", "K"), ("Μ", "M"),
            ("Ν", "N"), ("Ο", "O"), ("Ρ", "P"), ("Τ", "T"), ("Υ", "Y"), ("Χ", "X"),
            // Greek small letters
            ("α", "a"), ("ο", "o"), ("ρ", "p"), ("ν", "v"), ("ι", "i"), ("κ", "k"), ("υ", "u"), ("γ", "y"),
            ("χ", "x"), ("ω", "w"), ("ε", "e"),
            // Latin look-alikes of Latin letters
            ("ı", "i"), ("ȷ", "j"),
        ]
        var table: [UInt32: UInt32] = [:]
        for (from, to) in pairs {
            table[from.unicodeScalars.first!.value] = to.unicodeScalars.first!.value
        }
        return table
    }()
}
