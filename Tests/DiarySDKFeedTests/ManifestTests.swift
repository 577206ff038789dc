import Foundation
import Testing
@testable import DiarySDK

@Suite("feedparser manifest")
struct ManifestTests {
    /// Manifest entries where the difference from feedparser is deliberate; see docs/FEEDS.md for the reasons.
    static let deliberateDifferences: [String: String] = [
        "encoding/double-encoded-html": "feedparser repairs UTF-8 that was double-encoded through windows-1252 (mojibake); we keep the text as declared",
        "encoding/bozo_double-encoded-html": "same mojibake repair as double-encoded-html",
        "encoding/bozo_linenoise": "feedparser falls back to a lossy codec guess for binary noise; we replace invalid UTF-8 with U+FFFD",
        "wellformed/atom10/missing_quote_in_attr": "feedparser re-serialises HTML through its sanitiser (quotes attributes); we keep HTML as published",
        "wellformed/atom10/tag_in_attr": "sanitiser re-serialisation (attribute order, escaping of < in attributes)",
        "wellformed/atom10/qna": "feedparser re-escapes & in type=html titles through its sanitiser; we return the unescaped HTML",
        "wellformed/rss/item_description_br": "sanitiser normalises <br/> to <br />; we keep HTML as published",
        "wellformed/rss/item_description_not_a_doctype": "sanitiser escapes a stray <!; we keep HTML as published",
        "wellformed/namespace/atommathml": "feedparser rewrites foreign-namespace (MathML) markup with its own prefix and xmlns placement",
        "wellformed/namespace/atomsvg": "feedparser strips the svg: prefix and sorts attributes when re-serialising SVG",
        "wellformed/namespace/rss2.0svg5": "SVG re-serialisation by feedparser's sanitiser (attribute sorting, xmlns insertion)",
        "wellformed/namespace/rss2.0xlink": "SVG/XLink re-serialisation by feedparser's sanitiser",
        "wellformed/base/http_entry_id_base_content_location": "ids are opaque identifiers (RFC 4287 §4.2.6): we never resolve them against a base",
        "wellformed/base/http_feed_id_base_docuri": "ids are opaque identifiers: never resolved against a base",
        "wellformed/rss/channel_description_shorttag": "the following <link> is read correctly; only feedparser's '' for the empty element differs from our nil",
        "wellformed/rss/item_summary_and_description": "a non-standard RSS <summary> element is ignored; <description> is the summary",
        "wellformed/atom10/feed_link_rel_self_default_type": "we do not invent a media type for rel=self links",
    ]

    /// Assertion kinds of core_plus that the model deliberately does not carry: per-text-construct
    /// `xml:base`, `xml:lang` and MIME type (feedparser's `*_detail.base/.language/.type`).
    static let unmodelledMetadata: Set<String> = ["core_metadata"]

    struct Outcome {
        var passed = 0
        var total = 0
        var failures: [String] = []
    }

    static func run(scopes: Set<String>) throws -> Outcome {
        let dir = try FeedFixtures.directory()
        let manifest = try FeedFixtures.json("manifest.json")
        var outcome = Outcome()
        for entry in manifest["entries"] as? [[String: Any]] ?? [] {
            guard let scope = entry["scope"] as? String, scopes.contains(scope),
                  let path = entry["path"] as? String, let id = entry["id"] as? String else { continue }
            let data = try Data(contentsOf: dir.appendingPathComponent(path))
            let headers = entry["http_headers"] as? [String: String] ?? [:]
            var documentURL = (entry["document_uri"] as? String).flatMap(URL.init(string:))
            if let location = headers["Content-Location"] { documentURL = URL(string: location, relativeTo: documentURL)?.absoluteURL }
            let parsed = try? FeedParser().parse(data, documentURL: documentURL, httpCharset: headers["Content-Type"])
            let assertions = entry["assertions"] as? [[String: Any]] ?? []
            let failed = assertions.filter { !ManifestAdapter.evaluate($0, parsed: parsed) }
            outcome.total += 1
            if failed.isEmpty {
                outcome.passed += 1
            } else if deliberateDifferences[id] == nil {
                let detail = failed.map { a in
                    let actual = parsed.map { ManifestAdapter.resolve(a["path"] as? [Any] ?? [], in: ManifestAdapter.root($0)) }
                    return "\(a["op"] ?? "") \(a["path"] ?? "") expected=\(a["expected"] ?? "nil") actual=\(String(describing: actual ?? nil))"
                }.joined(separator: "; ")
                outcome.failures.append("\(id) [\(parsed == nil ? "threw" : "parsed")]: \(detail)")
            }
        }
        return outcome
    }

    @Test("manifest core entries pass at the measured rate")
    func corePassRate() throws {
        let outcome = try Self.run(scopes: ["core"])
        let rate = Double(outcome.passed) / Double(max(outcome.total, 1))
        print("manifest core pass rate: \(outcome.passed)/\(outcome.total) = \(String(format: "%.1f", rate * 100))%")
        for failure in outcome.failures { print("  FAIL \(failure)") }
        #expect(outcome.total == 371)
        #expect(rate >= 0.95)
        #expect(outcome.failures.isEmpty, "failures not listed as deliberate differences:\n\(outcome.failures.joined(separator: "\n"))")
    }

    @Test("manifest core_plus entries pass at the measured rate")
    func corePlusPassRate() throws {
        let outcome = try Self.run(scopes: ["core_plus"])
        let rate = Double(outcome.passed) / Double(max(outcome.total, 1))
        print("manifest core_plus pass rate: \(outcome.passed)/\(outcome.total) = \(String(format: "%.1f", rate * 100))%")
        let metadataOnly = outcome.failures.filter { !$0.contains("\"base\"]") && !$0.contains("\"language\"]") && !$0.contains("\"type\"]") }
        for failure in metadataOnly { print("  FAIL \(failure)") }
        #expect(rate >= 0.44)
        #expect(metadataOnly.isEmpty, "core_plus failures other than unmodelled text-construct metadata:\n\(metadataOnly.joined(separator: "\n"))")
    }
}
