import Foundation

/// SHA-256 (FIPS 180-4), HMAC-SHA256 (RFC 2104) and PBKDF2-HMAC-SHA256 (RFC 8018), for password hashing and
/// token digests in a package that may depend on nothing.
///
/// PBKDF2 runs two compressions per iteration: the HMAC key's inner and outer pad blocks are compressed once, and
/// each iteration hashes one pre-padded block from each of those states.
package enum SHA256 {
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
    /// The round constants in memory that lives as long as the process, for the hot loop.
    private nonisolated(unsafe) static let roundConstants: UnsafePointer<UInt32> = {
        let pointer = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        pointer.initialize(from: k, count: 64)
        return UnsafePointer(pointer)
    }()

    private static let initial: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// The 32-byte digest of `message`.
    package static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(message)
        let bitLength = UInt64(bytes.count) * 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var state = initial
        var schedule = [UInt32](repeating: 0, count: 64)
        bytes.withUnsafeBufferPointer { buffer in
            state.withUnsafeMutableBufferPointer { state in
                schedule.withUnsafeMutableBufferPointer { w in
                    for offset in stride(from: 0, to: buffer.count, by: 64) {
                        compress(state.baseAddress!, buffer.baseAddress! + offset, w.baseAddress!)
                    }
                }
            }
        }
        return digest(state)
    }

    /// HMAC-SHA256 of `message` under `key`.
    package static func hmac(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        let block = paddedKey(key)
        let inner = hash(block.map { $0 ^ 0x36 } + message)
        return hash(block.map { $0 ^ 0x5c } + inner)
    }

    /// PBKDF2-HMAC-SHA256 with one 32-byte output block.
    ///
    /// Optimised even in debug builds (`@_optimize(speed)`): a sign-in must not take seconds in a debug app.
    @_optimize(speed)
    package static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let first = hmac(key: password, message: salt + [0, 0, 0, 1])
        guard iterations > 1 else { return first }
        let key = paddedKey(password)
        // Buffers: the schedule, the two pad states, a working state, one block, U and the result. Loops are
        // `while` loops over pointers so that even an unoptimised build runs them without generic calls.
        let w = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        let states = UnsafeMutablePointer<UInt32>.allocate(capacity: 24)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 128)
        defer {
            w.deallocate()
            states.deallocate()
            bytes.deallocate()
        }
        let inner = states
        let outer = states + 8
        let state = states + 16
        let block = bytes
        let result = bytes + 64
        let u = bytes + 96
        initial.withUnsafeBufferPointer { start in
            inner.initialize(from: start.baseAddress!, count: 8)
            outer.initialize(from: start.baseAddress!, count: 8)
        }
        key.withUnsafeBufferPointer { key in
            var index = 0
            while index < 64 {
                block[index] = key[index] ^ 0x36
                index &+= 1
            }
            compress(inner, UnsafePointer(block), w)
            index = 0
            while index < 64 {
                block[index] = key[index] ^ 0x5c
                index &+= 1
            }
            compress(outer, UnsafePointer(block), w)
        }
        // One block holding a 32-byte message after a 64-byte prefix: 0x80, zeros, then the length 768 bits.
        (block + 32).initialize(repeating: 0, count: 32)
        block[32] = 0x80
        block[62] = 0x03
        first.withUnsafeBufferPointer { first in
            u.initialize(from: first.baseAddress!, count: 32)
            result.initialize(from: first.baseAddress!, count: 32)
        }
        var iteration = 1
        while iteration < iterations {
            iteration &+= 1
            block.update(from: u, count: 32)
            state.update(from: inner, count: 8)
            compress(state, UnsafePointer(block), w)
            store(state, into: block)
            state.update(from: outer, count: 8)
            compress(state, UnsafePointer(block), w)
            store(state, into: block)
            u.update(from: block, count: 32)
            var index = 0
            while index < 32 {
                result[index] ^= block[index]
                index &+= 1
            }
        }
        return Array(UnsafeBufferPointer(start: result, count: 32))
    }

    /// Lowercase hex of bytes.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Helpers

    private static func paddedKey(_ key: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        return block
    }

    private static func digest(_ state: [UInt32]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { buffer in
            state.withUnsafeBufferPointer { store(UnsafeMutablePointer(mutating: $0.baseAddress!), into: buffer.baseAddress!) }
        }
        return digest
    }

    @_optimize(speed)
    private static func store(_ state: UnsafeMutablePointer<UInt32>, into bytes: UnsafeMutablePointer<UInt8>) {
        var index = 0
        while index < 8 {
            let word = state[index]
            bytes[index &* 4] = UInt8(truncatingIfNeeded: word &>> 24)
            bytes[index &* 4 &+ 1] = UInt8(truncatingIfNeeded: word &>> 16)
            bytes[index &* 4 &+ 2] = UInt8(truncatingIfNeeded: word &>> 8)
            bytes[index &* 4 &+ 3] = UInt8(truncatingIfNeeded: word)
            index &+= 1
        }
    }

    /// Compresses one 64-byte block into `state`, using `w` (64 words) as the message schedule.
    @_optimize(speed)
    private static func compress(
        _ state: UnsafeMutablePointer<UInt32>, _ block: UnsafePointer<UInt8>, _ w: UnsafeMutablePointer<UInt32>
    ) {
        var i = 0
        while i < 16 {
            w[i] = UInt32(block[i &* 4]) &<< 24 | UInt32(block[i &* 4 &+ 1]) &<< 16 | UInt32(block[i &* 4 &+ 2]) &<< 8
                | UInt32(block[i &* 4 &+ 3])
            i &+= 1
        }
        while i < 64 {
            let x = w[i &- 15]
            let y = w[i &- 2]
            let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
            let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
            w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
            i &+= 1
        }
        var a = state[0]
        var b = state[1]
        var c = state[2]
        var d = state[3]
        var e = state[4]
        var f = state[5]
        var g = state[6]
        var h = state[7]
        let k = roundConstants
        i = 0
        while i < 64 {
            let s1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
            let temp1 = h &+ s1 &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
            let s0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
            let temp2 = s0 &+ ((a & b) ^ (a & c) ^ (b & c))
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ temp2
            i &+= 1
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    private static func compress(_ state: UnsafeMutablePointer<UInt32>, _ block: [UInt8], _ w: UnsafeMutablePointer<UInt32>) {
        block.withUnsafeBufferPointer { compress(state, $0.baseAddress!, w) }
    }
}
