import NIOCore
import Testing

@testable import DiaryServer

/// Who a request comes from behind proxies: `X-Forwarded-For` is believed only as far as trusted proxies wrote it.
@Suite("Client address behind trusted proxies")
struct ClientAddressTests {
    static let proxies = ["10.0.0.0/8", "fd00::/8", "192.0.2.7"].compactMap(AddressBlock.init)

    static func peer(_ text: String) throws -> SocketAddress { try SocketAddress(ipAddress: text, port: 4711) }

    static func client(_ peer: String, _ header: [String], trusted: [AddressBlock] = proxies) throws -> String? {
        ClientAddress.resolve(peer: try Self.peer(peer), forwardedFor: header, trusted: trusted)?.ipAddress
    }

    @Test func blocksParseAndHoldTheirAddresses() throws {
        #expect(Self.proxies.count == 3)
        let ten = try #require(AddressBlock("10.0.0.0/8"))
        #expect(ten.contains([10, 200, 3, 4]))
        #expect(!ten.contains([11, 0, 0, 1]))
        let odd = try #require(AddressBlock("172.16.0.0/12"))
        #expect(odd.contains([172, 31, 255, 255]))
        #expect(!odd.contains([172, 32, 0, 0]))
        let one = try #require(AddressBlock("192.0.2.7"))
        #expect(one.prefixLength == 32 && one.contains([192, 0, 2, 7]) && !one.contains([192, 0, 2, 8]))
        let v6 = try #require(AddressBlock("fd00::/8"))
        #expect(v6.contains(try #require(ClientAddress.bytes(ofAddress: "fd12:3456::1"))))
        #expect(!v6.contains([10, 0, 0, 1]), "an IPv4 address is never in an IPv6 block")
        #expect(try #require(AddressBlock("0.0.0.0/0")).contains([8, 8, 8, 8]))
        for bad in ["", "10.0.0.0/33", "fd00::/129", "10.0.0/8", "10.0.0.0/-1", "10.0.0.0/x", "example.com", "10.0.0.0/8/8"] {
            #expect(AddressBlock(bad) == nil, "\(bad)")
        }
    }

    @Test func withoutTrustedProxiesThePeerIsTheClientWhateverTheHeaderSays() throws {
        #expect(try Self.client("203.0.113.9", ["198.51.100.1"], trusted: []) == "203.0.113.9")
    }

    @Test func aPeerThatIsNoTrustedProxyIsTheClient() throws {
        #expect(try Self.client("203.0.113.9", ["198.51.100.1"]) == "203.0.113.9")
    }

    @Test func behindATrustedProxyTheClientIsTheRightmostUntrustedHop() throws {
        #expect(try Self.client("10.1.2.3", ["198.51.100.1"]) == "198.51.100.1")
        // The client wrote a forged first hop; the proxy appended the address it saw.
        #expect(try Self.client("10.1.2.3", ["6.6.6.6, 198.51.100.1"]) == "198.51.100.1")
        // Two trusted proxies in a row, and the header split over two fields.
        #expect(try Self.client("10.1.2.3", ["6.6.6.6, 198.51.100.1", "10.9.9.9"]) == "198.51.100.1")
        #expect(try Self.client("fd00::1", ["2001:db8::5"]) == "2001:db8::5")
        #expect(try Self.client("::ffff:10.1.2.3", ["198.51.100.1"]) == "198.51.100.1", "an IPv4-mapped peer is its IPv4 address")
    }

    @Test func hopsWithPortsAndBracketsAreRead() throws {
        #expect(try Self.client("10.1.2.3", ["198.51.100.1:5555"]) == "198.51.100.1")
        #expect(try Self.client("10.1.2.3", ["[2001:db8::5]:443"]) == "2001:db8::5")
    }

    @Test func aHopThatIsNoAddressEndsWhatIsBelieved() throws {
        #expect(try Self.client("10.1.2.3", ["198.51.100.1, unknown"]) == "10.1.2.3")
        #expect(try Self.client("10.1.2.3", ["198.51.100.1, 10.9.9.9, garbage"]) == "10.1.2.3")
        #expect(try Self.client("10.1.2.3", ["garbage, 10.9.9.9"]) == "10.9.9.9")
        #expect(try Self.client("10.1.2.3", []) == "10.1.2.3")
        #expect(try Self.client("10.1.2.3", [String(repeating: "1", count: 10_000)]) == "10.1.2.3")
    }

    @Test func whenEveryHopIsTrustedTheLeftmostIsTheClient() throws {
        #expect(try Self.client("10.1.2.3", ["10.4.4.4, 10.5.5.5"]) == "10.4.4.4")
    }

    @Test func theOptionParsesBlocksAndRefusesABadOne() throws {
        let options = try ServerOptions.parse(["--in-memory"], environment: ["DIARY_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8,192.0.2.7"])
        #expect(options.trustedProxies == Self.proxies)
        #expect(throws: OptionsError.self) {
            try ServerOptions.parse(["--in-memory"], environment: ["DIARY_TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"])
        }
    }
}
