@_spi(Storage) @testable import DiarySDK
import Foundation
import Testing

@Suite("Hashing")
struct HashingTests {
    @Test func sha256AndPBKDF2MatchPublishedVectors() {
        #expect(SHA256.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hex(SHA256.hash(long)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // RFC 4231 test case 2.
        #expect(
            SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // RFC 7914 section 11, PBKDF2-HMAC-SHA256 with one iteration, first 32 bytes.
        #expect(
            SHA256.hex(SHA256.pbkdf2(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
    }
}

@Suite("Password hashing")
struct PasswordHashingTests {
    @Test func pbkdf2MatchesRFC7914AtManyIterations() {
        // RFC 7914 section 11: PBKDF2-HMAC-SHA256, P = "Password", S = "NaCl", c = 80000, first 32 bytes.
        #expect(
            SHA256.hex(SHA256.pbkdf2(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80_000))
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56")
    }

    @Test func longKeysAreHashedFirst() {
        // RFC 4231 test case 6: a 131-byte key.
        let key = [UInt8](repeating: 0xaa, count: 131)
        #expect(
            SHA256.hex(SHA256.hmac(key: key, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
