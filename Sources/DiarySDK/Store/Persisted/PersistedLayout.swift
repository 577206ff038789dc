import Foundation

/// The layout of persisted rows: how a ``StoreRecord`` is written to disk, independent of how the public types
/// are written on the wire.
///
/// Each layout is a fixed format: the persisted row types (`Persisted…`) write the current one with explicit keys
/// and read every layout listed here, so a public property or enum case can be renamed, or the REST coding of a
/// public type changed, without changing what a store holds. A new layout gets a new case; readers pick the layout
/// from the file they read (see docs/FileStoreFormat.md).
package enum PersistedLayout: Int, Sendable, Comparable, CaseIterable {
    /// Written by file store schemas 1–3: the public types' synthesized coding as of that release. Enums with
    /// values were `{"post": {"_0": "…"}}`, `{"original": {}}`, and record keys `{"device": {"_0": "…", "_1": "…"}}`.
    case synthesized = 1
    /// Written since file store schema 4: the same row keys, pinned by explicit coding keys; kinded values as
    /// `{"type": "post", "id": "…"}`; record keys with named fields, `{"device": {"token": "…", "userID": "…"}}`.
    case explicit = 2

    /// The layout this code writes.
    package static let current = PersistedLayout.explicit

    package static func < (lhs: PersistedLayout, rhs: PersistedLayout) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A layout number that this code does not know: written by a newer version of DiarySDK.
    package struct NewerLayout: Error, Sendable, CustomStringConvertible {
        package var number: Int

        package var description: String {
            "rows in layout \(number), newer than this version of DiarySDK reads (up to \(PersistedLayout.current.rawValue))"
        }
    }

    /// The layout a file says it is in; `nil` (no layout named) is ``synthesized``.
    /// - Throws: ``NewerLayout`` for a number this code does not know.
    package init(reading number: Int?) throws {
        guard let layout = PersistedLayout(rawValue: number ?? PersistedLayout.synthesized.rawValue) else {
            throw NewerLayout(number: number ?? 0)
        }
        self = layout
    }

    /// The `userInfo` key under which a decoder carries the layout it reads (the current one when absent).
    package static let userInfoKey = CodingUserInfoKey(rawValue: "DiarySDK.PersistedLayout")!

    /// The layout a decoder reads: the one its `userInfo` names, or the one a ``Slot`` there holds at the moment.
    package static func of(_ decoder: any Decoder) -> PersistedLayout {
        switch decoder.userInfo[userInfoKey] {
        case let layout as PersistedLayout: layout
        case let slot as Slot: slot.layout
        default: .current
        }
    }

    /// A layout that changes while one decoder reads: for files whose records each say their own layout (a
    /// journal), the record sets it before decoding its rows. Used by one decoding at a time.
    package final class Slot: @unchecked Sendable {
        package var layout: PersistedLayout

        package init(_ layout: PersistedLayout = .current) {
            self.layout = layout
        }
    }
}

extension JSONEncoder {
    /// An encoder for persisted rows: sorted keys, slashes unescaped. Rows write their dates, days and ids as
    /// strings themselves, so no strategy of the wire format is involved. A store outside the package encodes
    /// ``StoreRecord``s with it (under `@_spi(Storage)`), as the file store does.
    @_spi(Storage)
    public static func persisted() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension JSONDecoder {
    /// A decoder for persisted rows written in `layout`.
    package static func persisted(_ layout: PersistedLayout = .current) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[PersistedLayout.userInfoKey] = layout
        return decoder
    }

    /// A decoder for persisted rows in whatever layout `slot` holds when each is read.
    package static func persisted(_ slot: PersistedLayout.Slot) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[PersistedLayout.userInfoKey] = slot
        return decoder
    }
}
