/// Reads the engine asks together, so a store that pays a round trip per read can answer them all with one
/// (``StorageReader/read(_:)``): a viewer's row with their blocks, or everything a page of posts shows beside its
/// rows (like counts, comment counts, "liked by me", authors).
///
/// Each read added returns a ``Handle`` to find its answer by:
///
/// ```swift
/// var batch = StorageReadBatch()
/// let account = batch.records([.user(id)])
/// let blocks = batch.rows(StorageSchema.blocksByBlocker, equalToAnyOf: [id])
/// let answers = try await db.read(batch)
/// let user = try answers[account][.user(id)]
/// ```
///
/// A store reads ``parts`` (the reads, with their indices by name and their values type-erased) and answers each
/// with ``Answers/Builder``, which turns its rows and counts back into the typed answers. Each part means exactly
/// what the ``StorageReader`` requirement of the same shape means.
@_spi(Storage)
public struct StorageReadBatch: Sendable {
    /// One read of a batch.
    public enum Part: Sendable {
        /// The rows with any of these keys: ``StorageReader/records(_:)``.
        case records([RecordKey])
        /// The rows whose index value is any of `values`: ``StorageReader/rows(_:equalToAnyOf:)``. `index` is the
        /// declaration's ``StorageIndex/name``; its rows are in the table of `kind`.
        case rows(index: String, kind: RecordKind, values: [any Hashable & Sendable])
        /// For each value, how many rows with it pass `filter`: ``StorageReader/counts(_:equalToAnyOf:where:)``.
        case counts(index: String, values: [any Hashable & Sendable], filter: RowFilter)
    }

    /// Where a read's answer is found in ``Answers``.
    public struct Handle<Answer: Sendable>: Sendable {
        fileprivate let part: Int
    }

    /// How a part is answered with its typed read, and how a store's rows or counts become its typed answer.
    private struct Typed: Sendable {
        var read: @Sendable (any StorageReader) async throws -> any Sendable
        var fromRecords: (@Sendable ([StoreRecord]) throws -> any Sendable)?
        var fromCounts: (@Sendable ([Int: Int]) -> any Sendable)?
    }

    /// The reads, in the order they were added.
    public private(set) var parts: [Part] = []
    private var typed: [Typed] = []

    /// An empty batch.
    public init() {}

    /// Whether nothing was added.
    public var isEmpty: Bool { parts.isEmpty }

    /// Adds ``StorageReader/records(_:)``.
    public mutating func records(_ keys: [RecordKey]) -> Handle<[RecordKey: StoreRecord]> {
        add(
            .records(keys), read: { try await $0.records(keys) },
            fromRecords: { records in
                var found: [RecordKey: StoreRecord] = [:]
                let asked = Set(keys)
                for record in records where asked.contains(record.key) { found[record.key] = record }
                return found
            },
            fromCounts: nil)
    }

    /// Adds ``StorageReader/rows(_:equalToAnyOf:)``.
    public mutating func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) -> Handle<[Row]> {
        add(
            .rows(index: index.name, kind: index.table.kind, values: values), read: { try await $0.rows(index, equalToAnyOf: values) },
            fromRecords: { records in
                var seen: Set<RecordKey> = []
                var rows: [Row] = []
                for record in records where seen.insert(record.key).inserted {
                    guard let row = index.table.unwrap(record) else {
                        throw DiaryError(.storageCorrupted, "the \(index.table.kind.rawValue) table holds a row of another kind")
                    }
                    rows.append(row)
                }
                return rows
            },
            fromCounts: nil)
    }

    /// Adds ``StorageReader/counts(_:equalToAnyOf:where:)``. A store answers with counts by position in `values`.
    public mutating func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) -> Handle<[Value: Int]> {
        add(
            .counts(index: index.name, values: values, filter: filter),
            read: { try await $0.counts(index, equalToAnyOf: values, where: filter) }, fromRecords: nil,
            fromCounts: { byPosition in
                var counts: [Value: Int] = [:]
                for (position, count) in byPosition where values.indices.contains(position) { counts[values[position]] = count }
                return counts
            })
    }

    private mutating func add<Answer: Sendable>(
        _ part: Part, read: @escaping @Sendable (any StorageReader) async throws -> Answer,
        fromRecords: (@Sendable ([StoreRecord]) throws -> any Sendable)?, fromCounts: (@Sendable ([Int: Int]) -> any Sendable)?
    ) -> Handle<Answer> {
        parts.append(part)
        typed.append(Typed(read: { try await read($0) }, fromRecords: fromRecords, fromCounts: fromCounts))
        return Handle(part: parts.count - 1)
    }

    /// Answers each read with the ``StorageReader`` requirement of its shape, one after another: the default of
    /// ``StorageReader/read(_:)``, right for a store in memory.
    public func readOneByOne(on reader: any StorageReader) async throws -> Answers {
        var answers: [any Sendable] = []
        for part in typed { answers.append(try await part.read(reader)) }
        return Answers(answers: answers)
    }

    /// The answers to a batch's reads.
    public struct Answers: Sendable {
        fileprivate let answers: [any Sendable]

        /// The answer of one read.
        /// - Throws: ``DiaryError/Code/server`` when the handle is not of the batch these answers are for.
        public subscript<Answer>(_ handle: Handle<Answer>) -> Answer {
            get throws {
                guard answers.indices.contains(handle.part), let answer = answers[handle.part] as? Answer else {
                    throw DiaryError(.server, "a batched read has no answer for part \(handle.part)")
                }
                return answer
            }
        }

        /// The answer of a ``Part/records(_:)`` part by its position in ``StorageReadBatch/parts`` (what a store that
        /// remembers the rows a transaction read needs); `nil` for a part of another shape.
        public func records(ofPart part: Int) -> [RecordKey: StoreRecord]? {
            guard answers.indices.contains(part) else { return nil }
            return answers[part] as? [RecordKey: StoreRecord]
        }

        /// Collects a store's answers, part by part.
        public struct Builder: Sendable {
            private let batch: StorageReadBatch
            private var answers: [(any Sendable)?]

            /// A builder for `batch`'s answers.
            public init(for batch: StorageReadBatch) {
                self.batch = batch
                answers = Array(repeating: nil, count: batch.parts.count)
            }

            /// Answers a ``Part/records(_:)`` or ``Part/rows(index:kind:values:)`` part with the rows found (in
            /// any order; a row found twice counts once).
            /// - Throws: ``DiaryError/Code/storageCorrupted`` when a row is of another kind than the index's table.
            public mutating func answer(part: Int, records: [StoreRecord]) throws {
                guard batch.typed.indices.contains(part), let make = batch.typed[part].fromRecords else {
                    throw DiaryError(.server, "part \(part) of a batched read is not answered with rows")
                }
                answers[part] = try make(records)
            }

            /// Answers a ``Part/counts(index:values:filter:)`` part with each value's count, by the value's position
            /// in the part's values; a value with none may be left out.
            public mutating func answer(part: Int, countsByPosition counts: [Int: Int]) throws {
                guard batch.typed.indices.contains(part), let make = batch.typed[part].fromCounts else {
                    throw DiaryError(.server, "part \(part) of a batched read is not answered with counts")
                }
                answers[part] = make(counts)
            }

            /// The answers.
            /// - Throws: ``DiaryError/Code/server`` when a part was not answered.
            public func build() throws -> Answers {
                var complete: [any Sendable] = []
                for (part, answer) in answers.enumerated() {
                    guard let answer else { throw DiaryError(.server, "part \(part) of a batched read was not answered") }
                    complete.append(answer)
                }
                return Answers(answers: complete)
            }
        }
    }
}
