import Foundation

/// An `InputStream` over bytes the caller keeps alive for the stream's whole use, read in place, for handing a
/// document to `XMLParser(stream:)` without copying it.
enum FeedByteInputStream {
    /// A stream over `bytes`; valid only while `bytes` is.
    static func make(_ bytes: UnsafeBufferPointer<UInt8>) -> InputStream {
        #if canImport(FoundationXML)
        // swift-corelibs-foundation: XMLParser calls only `open`, `read(_:maxLength:)` and `close` on its stream, and
        // `InputStream(data:)` would copy the bytes into a CFData.
        return BufferStream(bytes)
        #else
        // Apple platforms: NSInputStream reads the NSData it is given; `bytesNoCopy` with no deallocator wraps the
        // buffer without copying it.
        guard let base = bytes.baseAddress, bytes.count > 0 else { return InputStream(data: Data()) }
        return InputStream(data: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
        #endif
    }

    #if canImport(FoundationXML)
    private final class BufferStream: InputStream {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var position = 0
        private var status: Stream.Status = .notOpen

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            super.init(data: Data())
        }

        override func open() { status = .open }
        override func close() { status = .closed }
        override var streamStatus: Stream.Status { status }
        override var streamError: Error? { nil }
        override var hasBytesAvailable: Bool { position < bytes.count }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
            let count = Swift.min(len, bytes.count - position)
            guard count > 0, let base = bytes.baseAddress else {
                status = .atEnd
                return 0
            }
            buffer.update(from: base + position, count: count)
            position += count
            return count
        }

        override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
            false
        }
    }
    #endif
}
