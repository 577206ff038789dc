@testable import DiarySDK
import Testing

/// The HTML stripper search uses on imported blog posts: its output, and that its work stays linear in the input.
@Suite("SearchText")
struct SearchTextTests {
    /// Inputs whose cost grew quadratically before: each is built at growing sizes and must cost at most
    /// 40 scalar inspections per input scalar.
    static var adversarial: [(name: String, make: (Int) -> String)] {
        [
            ("script then unterminated anchors", { "<script>" + String(repeating: "<a", count: $0) }),
            ("style then unterminated anchors", { "<style>" + String(repeating: "<a ", count: $0) }),
            ("script then unterminated end tags", { "<script>" + String(repeating: "</scrip", count: $0) }),
            ("script then longer end tags", { "<script>" + String(repeating: "</scripts", count: $0) }),
            ("script then open quotes", { "<script>" + String(repeating: "<a \"", count: $0) }),
            ("unterminated less-thans", { String(repeating: "<", count: $0) }),
            ("unterminated tags", { String(repeating: "<a", count: $0) }),
            ("nested comments", { String(repeating: "<!-- <!-- ", count: $0) }),
            ("script then comments", { "<script>" + String(repeating: "<!--", count: $0) }),
            ("declarations", { String(repeating: "<!x", count: $0) }),
            ("references", { String(repeating: "&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", count: $0) }),
        ]
    }

    @Test(arguments: [1_000, 10_000, 20_000])
    func strippingIsLinearOnAdversarialMarkup(repeats: Int) {
        for (name, make) in Self.adversarial {
            let html = make(repeats)
            let n = html.unicodeScalars.count
            let steps = SearchText.readableCountingSteps(html: html).steps
            #expect(steps <= 40 * n, "\(name): \(steps) steps for \(n) scalars")
        }
    }

    @Test func rawTextEndsAtTheFirstEndTagWhateverItsCase() {
        #expect(SearchText.readable(html: "a<script>x<a</SCRIPT >b") == "a b")
        #expect(SearchText.readable(html: "a<style>p{}</stylex>q</Style>b") == "a b")
        #expect(SearchText.readable(html: "a<script>if (a<b) {}</script>b") == "a b")
        #expect(SearchText.readable(html: "a<script>x</script") == "a ")
        #expect(SearchText.readable(html: "a<script>x") == "a ")
        #expect(SearchText.readable(html: "a<script>x</script title='>'>b") == "a b")
    }

    @Test func ordinaryMarkupReadsAsBefore() {
        let cases: [(String, String)] = [
            ("<p>Hello <b>wo</b>rld</p>", " Hello world "),
            ("<p>caf&eacute; &amp; &#8217;s &#x41;</p>", " café & ’s A "),
            ("a<!-- hidden -->b<br/>c", "a b c"),
            ("<a href=\"x>y\">link</a> 1 < 2", "link 1 < 2"),
            ("<!DOCTYPE html><div>x</div>", "  x "),
            ("<style>p { color: red }</style>text", " text"),
            ("<SCRIPT type='text/javascript'>var s = '</p>';</SCRIPT>after", " after"),
            ("&bogus; & &#0; x", "&bogus; & &#0; x"),
            ("<a", ""),
        ]
        for (html, text) in cases {
            #expect(SearchText.readable(html: html) == text, "\(html)")
        }
    }
}
