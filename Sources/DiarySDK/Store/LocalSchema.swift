import Foundation

/// Where ``LocalDatabase`` keeps each table, index and listing: positions derived once from ``StorageSchema``, so
/// a declaration added there is kept here with no other edit.
package enum LocalSchema {
    /// Each kind's table position: its place in `RecordKind.allCases`, by a switch rather than a dictionary, since
    /// every row read asks for it and `RecordKind` hashes as its raw `String` (`LocalDatabaseModelTests` checks the
    /// order).
    @inline(__always)
    static func tablePosition(_ kind: RecordKind) -> Int {
        switch kind {
        case .user: 0
        case .credential: 1
        case .session: 2
        case .device: 3
        case .diary: 4
        case .book: 5
        case .membership: 6
        case .comment: 7
        case .post: 8
        case .like: 9
        case .follow: 10
        case .block: 11
        case .report: 12
        case .notification: 13
        case .blog: 14
        case .attachment: 15
        case .anonymousBlock: 16
        case .retiredID: 17
        case .outbox: 18
        }
    }

    /// Each index's position in ``StorageSchema/allIndices``, by name.
    static let indexPosition: [String: Int] = Dictionary(
        StorageSchema.allIndices.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first }
    )

    /// Each listing's position in ``StorageSchema/allListings``, by name.
    static let listingPosition: [String: Int] = Dictionary(
        StorageSchema.allListings.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first }
    )

    /// The positions of the indices over each table, by table position.
    static let indicesOfTable: [[Int]] = RecordKind.allCases.map { kind in
        StorageSchema.allIndices.indices.filter { StorageSchema.allIndices[$0].kind == kind }
    }

    /// The positions of the listings over each table, by table position.
    static let listingsOfTable: [[Int]] = RecordKind.allCases.map { kind in
        StorageSchema.allListings.indices.filter { StorageSchema.allListings[$0].kind == kind }
    }

    /// An empty local index for every declared index.
    static func makeIndices() -> [any LocalIndexStorage] {
        StorageSchema.allIndices.map { declaration in
            guard let maker = declaration as? any LocalIndexMaking else {
                preconditionFailure("\(declaration.name) is not a StorageIndex")
            }
            return maker.makeLocalIndex()
        }
    }

    /// An empty local listing for every declared listing.
    static func makeListings() -> [any LocalListingStorage] {
        StorageSchema.allListings.map { declaration in
            guard let maker = declaration as? any LocalListingMaking else {
                preconditionFailure("\(declaration.name) is not a StorageListing")
            }
            return maker.makeLocalListing()
        }
    }
}

/// A declaration that makes its local index: how ``LocalSchema`` opens an `any StorageIndexDeclaration`.
protocol LocalIndexMaking {
    func makeLocalIndex() -> any LocalIndexStorage
}

/// A declaration that makes its local listing.
protocol LocalListingMaking {
    func makeLocalListing() -> any LocalListingStorage
}

extension StorageIndex: LocalIndexMaking {
    func makeLocalIndex() -> any LocalIndexStorage { LocalIndex(self) }
}

extension StorageListing: LocalListingMaking {
    func makeLocalListing() -> any LocalListingStorage { LocalListing(self) }
}
