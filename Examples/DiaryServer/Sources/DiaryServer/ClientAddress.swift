import Foundation
import NIOCore

/// A block of addresses, as `DIARY_TRUSTED_PROXIES` lists them: `10.0.0.0/8`, `fd00::/8`, or one address.
struct AddressBlock: Sendable, Equatable, CustomStringConvertible {
    /// The block's first address: 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]
    /// How many leading bits an address shares with ``bytes`` to be in the block.
    let prefixLength: Int

    /// Parses `address/prefix` or a lone address; `nil` when it is neither.
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = ClientAddress.bytes(ofAddress: String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.bytes = bytes
    }

    /// Whether `address` (4 or 16 bytes) is in the block.
    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var remaining = prefixLength
        for index in bytes.indices where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if address[index] & mask != bytes[index] & mask { return false }
            remaining -= 8
        }
        return true
    }

    var description: String {
        let address = (try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: 0))?.ipAddress ?? "?"
        return "\(address)/\(prefixLength)"
    }
}

/// Who a request comes from: the peer, or, when the peer is a proxy the server trusts, the client that proxy names
/// in `X-Forwarded-For`.
///
/// The header is read from its right end, which the nearest proxy wrote: each address there that is itself a trusted
/// proxy is skipped, and the first one that is not is the client. Everything left of it was written by the client
/// or by proxies nobody vouches for, so it is never believed. A peer that is not a trusted proxy is the client, whatever
/// it claims in the header.
enum ClientAddress {
    /// The client of a request from `peer` carrying the `X-Forwarded-For` values `forwardedFor` (in header order).
    static func resolve(peer: SocketAddress?, forwardedFor: [String], trusted: [AddressBlock]) -> SocketAddress? {
        guard !trusted.isEmpty, let peer, let peerBytes = bytes(of: peer), isTrusted(peerBytes, trusted) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard let address = socketAddress(hop), let hopBytes = bytes(of: address) else {
                // A hop that is no address ends what can be believed: the last trusted hop's word is all there is.
                return client
            }
            client = address
            if !isTrusted(hopBytes, trusted) { return client }
        }
        return client
    }

    /// The address's bytes, with an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address.
    static func bytes(of address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let all = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if all.prefix(10).allSatisfy({ $0 == 0 }), all[10] == 0xFF, all[11] == 0xFF { return Array(all.suffix(4)) }
            return all
        case .unixDomainSocket:
            return nil
        }
    }

    /// The bytes of a textual address, IPv4 or IPv6.
    static func bytes(ofAddress text: String) -> [UInt8]? {
        socketAddress(text).flatMap(bytes(of:))
    }

    /// A textual address as a socket address: `192.0.2.1`, `2001:db8::1`, and the forms with a port that proxies
    /// also write (`192.0.2.1:4711`, `[2001:db8::1]:4711`).
    private static func socketAddress(_ text: String) -> SocketAddress? {
        var host = Substring(text)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        guard !host.isEmpty, host.count <= 45 else { return nil }
        return try? SocketAddress(ipAddress: String(host), port: 0)
    }

    private static func isTrusted(_ address: [UInt8], _ trusted: [AddressBlock]) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}
