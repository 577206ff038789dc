@_spi(Storage) import DiarySDK
import Foundation

/// `closed.json`: written by every clean close, it records the journal the store ended in and the sequence of its
/// last record: `{"generation": 4, "sequence": 1234}`.
///
/// Every record up to that sequence had been acknowledged, so on the next open the journals must reach it: a
/// journal that ends earlier has lost acknowledged records, and a missing journal of that generation (or a newer
/// one's predecessor) is corruption. The marker is never removed while the store is open; a stale one (written by an
/// older close, before more writes) is still a true lower bound, because sequences only grow.
struct CloseMarker: StoreMarker, Equatable {
    /// The generation of the journal being appended to at the close.
    var generation: Int
    /// The sequence of the last record written before the close.
    var sequence: UInt64

    static let fileName = StoreFiles.closeMarker
    static let kind = "the close marker"
}
