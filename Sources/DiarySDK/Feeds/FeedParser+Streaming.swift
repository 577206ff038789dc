import Foundation

extension FeedParser {
    /// Parses a document delivered as an asynchronous byte sequence (for example `URLSession.AsyncBytes`).
    ///
    /// Memory: the bytes are accumulated chunk-wise into one buffer, which never grows beyond
    /// ``Configuration/maxBytes`` (the sequence is abandoned with `.tooLarge` as soon as the limit is passed).
    /// The whole document is needed before parsing starts because the encoding, the entity repair pass and the
    /// recovery of truncated documents work on the complete text. The buffer itself is what the parser works on and
    /// is released before the feed is built; peak memory was about 3 times the document (2.98×) for a 50 MB podcast
    /// feed (docs/FEEDS.md, "Memory"), bounded by the limit.
    /// - Parameters:
    ///   - bytes: The byte sequence.
    ///   - documentURL: The URL the document comes from, for resolving relative links.
    ///   - httpCharset: The HTTP `Content-Type` header or its charset; overrides the XML declaration.
    /// - Returns: The feed and its diagnostics.
    /// - Throws: ``FeedParsingError`` with `.io` when the sequence fails, `.tooLarge` past the limit, or any
    ///   error of ``parse(_:documentURL:httpCharset:)``.
    public func parse<S: AsyncSequence>(bytes: S, documentURL: URL? = nil, httpCharset: String? = nil) async throws -> FeedParseResult
    where S.Element == UInt8 {
        var buffer: [UInt8] = []
        var chunk: [UInt8] = []
        chunk.reserveCapacity(64 * 1_024)
        do {
            for try await byte in bytes {
                chunk.append(byte)
                if chunk.count == 64 * 1_024 {
                    try append(&chunk, to: &buffer)
                }
            }
            try append(&chunk, to: &buffer)
        } catch let error as FeedParsingError {
            throw error
        } catch {
            throw FeedParsingError(.io, "Reading the byte stream failed: \(error.localizedDescription)", underlying: FeedUnderlyingError(error))
        }
        return try parseOwned(buffer, documentURL: documentURL, httpCharset: httpCharset)
    }

    /// Parses a document delivered as an asynchronous sequence of `Data` chunks.
    /// - Parameters:
    ///   - chunks: The chunk sequence.
    ///   - documentURL: The URL the document comes from, for resolving relative links.
    ///   - httpCharset: The HTTP `Content-Type` header or its charset; overrides the XML declaration.
    /// - Returns: The feed and its diagnostics.
    /// - Throws: ``FeedParsingError`` with `.io` when the sequence fails, `.tooLarge` past the limit, or any
    ///   error of ``parse(_:documentURL:httpCharset:)``.
    public func parse<S: AsyncSequence>(chunks: S, documentURL: URL? = nil, httpCharset: String? = nil) async throws -> FeedParseResult
    where S.Element == Data {
        var buffer = Data()
        do {
            for try await chunk in chunks {
                guard buffer.count + chunk.count <= configuration.maxBytes else {
                    throw FeedParsingError(.tooLarge, "The stream exceeds the limit of \(configuration.maxBytes) bytes")
                }
                buffer.append(chunk)
            }
        } catch let error as FeedParsingError {
            throw error
        } catch {
            throw FeedParsingError(.io, "Reading the chunk stream failed: \(error.localizedDescription)", underlying: FeedUnderlyingError(error))
        }
        return try parse(buffer, documentURL: documentURL, httpCharset: httpCharset)
    }

    private func append(_ chunk: inout [UInt8], to buffer: inout [UInt8]) throws {
        guard buffer.count + chunk.count <= configuration.maxBytes else {
            throw FeedParsingError(.tooLarge, "The stream exceeds the limit of \(configuration.maxBytes) bytes")
        }
        buffer.append(contentsOf: chunk)
        chunk.removeAll(keepingCapacity: true)
    }
}
