import Foundation

/// Detects a document's character encoding and transcodes it to UTF-8 before XMLParser sees it.
///
/// Order of precedence: byte-order mark, caller-supplied HTTP charset, UTF-16/32 byte pattern of `<?`,
/// the XML declaration's `encoding`, then UTF-8. Legacy encodings are decoded with `String(data:encoding:)`
/// using CoreFoundation encoding constants (portable: the same raw values work on Apple platforms and on
/// Linux, where swift-corelibs-foundation converts through ICU).
enum FeedEncoding {
    struct Decoded {
        var bytes: [UInt8]
        var encoding: String
        var diagnostics: [FeedDiagnostic]
    }

    /// IANA / WHATWG label → (canonical name, String.Encoding raw value).
    /// Supersets are used the way browsers do: GB2312 → GB18030, EUC-KR → CP949, ISO-8859-1 → windows-1252.
    static func lookup(_ label: String) -> (name: String, encoding: String.Encoding)? {
        let key = label.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\"'")).lowercased()
        func cf(_ value: UInt) -> String.Encoding { String.Encoding(rawValue: 0x8000_0000 | value) }
        switch key {
        case "utf-8", "utf8", "unicode-1-1-utf-8": return ("utf-8", .utf8)
        case "us-ascii", "ascii", "ansi_x3.4-1968", "iso-ir-6", "iso646-us":
            return ("us-ascii", .windowsCP1252)
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1", "cp819", "windows-1252", "cp1252", "x-cp1252":
            return (key.contains("1252") ? "windows-1252" : "iso-8859-1", .windowsCP1252)
        case "utf-16", "utf16": return ("utf-16", .utf16)
        case "utf-16le", "utf-16-le": return ("utf-16le", .utf16LittleEndian)
        case "utf-16be", "utf-16-be": return ("utf-16be", .utf16BigEndian)
        case "utf-32", "utf32": return ("utf-32", .utf32)
        case "utf-32le": return ("utf-32le", .utf32LittleEndian)
        case "utf-32be": return ("utf-32be", .utf32BigEndian)
        case "euc-kr", "euckr", "ks_c_5601-1987", "ksc5601", "cp949", "uhc", "windows-949", "x-windows-949", "korean":
            return ("euc-kr", cf(0x0422))
        case "gb2312", "gbk", "cp936", "x-gbk", "euc-cn", "gb18030", "chinese", "csgb2312":
            return ("gb18030", cf(0x0632))
        case "big5", "big5-hkscs", "cn-big5", "x-x-big5": return ("big5", cf(0x0A03))
        case "shift_jis", "shift-jis", "sjis", "ms_kanji", "windows-31j", "cp932", "x-sjis": return ("shift_jis", cf(0x0A01))
        case "euc-jp", "eucjp", "x-euc-jp": return ("euc-jp", cf(0x0920))
        case "iso-2022-jp": return ("iso-2022-jp", cf(0x0820))
        case "koi8-r", "koi8r": return ("koi8-r", cf(0x0A02))
        case "koi8-u": return ("koi8-u", cf(0x0A08))
        case "iso-8859-15", "latin9", "latin-9": return ("iso-8859-15", cf(0x020F))
        case "macintosh", "mac", "x-mac-roman": return ("macintosh", .macOSRoman)
        default:
            if key.hasPrefix("iso-8859-"), let n = UInt(key.dropFirst(9)), (2...16).contains(n), n != 12 {
                return (key, n == 2 ? .isoLatin2 : cf(0x0200 + n))
            }
            if key.hasPrefix("windows-125"), let n = UInt(key.dropFirst(11)), n <= 8 {
                switch n {
                case 0: return (key, .windowsCP1250)
                case 1: return (key, .windowsCP1251)
                case 3: return (key, .windowsCP1253)
                case 4: return (key, .windowsCP1254)
                default: return (key, cf(0x0500 + n))
                }
            }
            return nil
        }
    }

    /// Reads `charset=` out of a Content-Type value, or accepts a bare charset name.
    static func charset(fromHTTP value: String) -> String? {
        let lower = value.lowercased()
        guard let range = lower.range(of: "charset=") else {
            return lower.contains("/") || lower.contains(";") ? nil : FeedText.trimmed(value)
        }
        let rest = value[range.upperBound...]
        let name = rest.prefix { $0 != ";" && $0 != "," }
        return FeedText.trimmed(name.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")))
    }

    /// The `encoding` pseudo-attribute of an ASCII-compatible XML declaration at the start (after whitespace), if
    /// any; the declaration need not be terminated (see ``FeedXMLDeclaration``).
    static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> String? {
        FeedXMLDeclaration.find(in: bytes)?.encoding
    }
}
