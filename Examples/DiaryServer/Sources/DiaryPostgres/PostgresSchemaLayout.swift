@_spi(Storage) import DiarySDK

/// The tables of one schema, derived from ``StorageSchema``: a table per ``RecordKind``, an entry table per declared
/// index and listing. Adding a declaration to the SDK adds its table here with no other edit, and the migrator
/// creates and fills it (``PostgresMigrator``).
///
/// - `row_<kind>(key text PRIMARY KEY, doc jsonb)`; `row_post` adds `search_text` (the folded searchable text,
///   trigram GIN index), `search_tags` (lowercased tags, GIN index) and its feed entry's `sort_micros`, `sort_id`,
///   `author_id` and `is_anonymous` (B-tree `row_post_feed` on the position), which a search walks.
/// - `ix_<index>(value, key, author_id, is_anonymous)`: `UNIQUE (value)` for a unique index, else
///   `PRIMARY KEY (value, key)`; an index on `key` for upkeep.
/// - `ls_<listing>(partition, sort_micros, sort_id, key, author_id, is_anonymous)`, `PRIMARY KEY (partition,
///   sort_micros, sort_id)`: one B-tree serves both directions, keyset and offset paging.
struct PostgresSchemaLayout: Sendable {
    /// An index's table.
    struct IndexTable: Sendable {
        let declaration: any PostgresIndexDeclaration
        let table: SQLIdentifier
        /// The unique constraint, for unique indices.
        let uniqueConstraint: SQLIdentifier?
        /// The B-tree on `key`, for upkeep.
        let keyIndex: SQLIdentifier
    }

    /// A listing's table.
    struct ListingTable: Sendable {
        let declaration: any PostgresListingDeclaration
        let table: SQLIdentifier
        /// The B-tree on `key`, for upkeep.
        let keyIndex: SQLIdentifier
    }

    let schema: SQLIdentifier
    let recordTables: [RecordKind: SQLIdentifier]
    let indices: [String: IndexTable]
    let listings: [String: ListingTable]
    let indicesOfKind: [RecordKind: [IndexTable]]
    let listingsOfKind: [RecordKind: [ListingTable]]
    /// The GIN indices of the post table's searchable text and tags.
    let postSearchIndices: (text: SQLIdentifier, tags: SQLIdentifier)
    /// `row_post`'s index on its feed position, `(sort_micros, sort_id)`, which a search walks.
    let postFeedIndex: SQLIdentifier

    /// The layout of a schema.
    /// - Throws: ``DiaryError/Code/server`` when the schema name is not a plain lowercase identifier, or a
    ///   declaration in ``StorageSchema`` has a value type this store cannot key or a name that makes no table
    ///   name: the store refuses to start rather than fail on a request.
    init(schema: String) throws {
        guard let schemaName = SQLIdentifier(schema) else {
            throw DiaryError(.server, "the schema name '\(schema)' is not a lowercase identifier (a-z, 0-9, _; at most 63 bytes)")
        }
        self.schema = schemaName
        var recordTables: [RecordKind: SQLIdentifier] = [:]
        for kind in RecordKind.allCases {
            guard let table = SQLIdentifier.snakeCase(kind.rawValue, prefix: "row_") else {
                throw DiaryError(.server, "the record kind \(kind.rawValue) makes no table name")
            }
            recordTables[kind] = table
        }
        // Every name derived below is a checked identifier: a declaration whose name would make one longer than
        // PostgreSQL allows (63 bytes) stops the store here, with the declaration named, instead of trapping.
        func derived(_ table: SQLIdentifier, _ suffix: String) throws -> SQLIdentifier {
            guard let name = SQLIdentifier(table.name + suffix) else {
                throw DiaryError(.server, "the table \(table.name) makes no index name \(table.name)\(suffix) of 63 bytes or fewer")
            }
            return name
        }
        guard let postTable = recordTables[.post] else { throw DiaryError(.server, "the post record kind makes no table") }
        postSearchIndices = (try derived(postTable, "_search_text"), try derived(postTable, "_search_tags"))
        postFeedIndex = try derived(postTable, "_feed")
        var used = Set(recordTables.values)
        func claim(_ name: String, prefix: String) throws -> SQLIdentifier {
            guard let table = SQLIdentifier.snakeCase(name, prefix: prefix), table.name.utf8.count <= 56,
                used.insert(table).inserted
            else { throw DiaryError(.server, "the declaration \(name) makes no table name of its own") }
            return table
        }
        var indices: [String: IndexTable] = [:]
        for declaration in StorageSchema.allIndices {
            guard let known = declaration as? any PostgresIndexDeclaration else {
                throw DiaryError(.server, "the PostgreSQL store does not know how to key the index \(declaration.name)")
            }
            let table = try claim(declaration.name, prefix: "ix_")
            indices[declaration.name] = IndexTable(
                declaration: known, table: table,
                uniqueConstraint: known.isUnique ? try derived(table, "_unique") : nil, keyIndex: try derived(table, "_key"))
        }
        var listings: [String: ListingTable] = [:]
        for declaration in StorageSchema.allListings {
            guard let known = declaration as? any PostgresListingDeclaration else {
                throw DiaryError(.server, "the PostgreSQL store does not know how to key the listing \(declaration.name)")
            }
            let table = try claim(declaration.name, prefix: "ls_")
            listings[declaration.name] = ListingTable(declaration: known, table: table, keyIndex: try derived(table, "_key"))
        }
        guard listings[StorageSchema.feed.name] != nil else {
            throw DiaryError(.server, "text search pages the listing \(StorageSchema.feed.name), which is not declared")
        }
        self.recordTables = recordTables
        self.indices = indices
        self.listings = listings
        indicesOfKind = Dictionary(grouping: indices.values, by: { $0.declaration.kind })
        listingsOfKind = Dictionary(grouping: listings.values, by: { $0.declaration.kind })
    }

    /// `schema.table`, quoted.
    func qualified(_ table: SQLIdentifier) -> String {
        table.qualified(by: schema)
    }

    /// A kind's table, qualified.
    func recordTable(_ kind: RecordKind) -> String {
        qualified(recordTableName(kind))
    }

    /// A kind's table. `init` made one for every kind, or threw.
    private func recordTableName(_ kind: RecordKind) -> SQLIdentifier {
        guard let table = recordTables[kind] else { preconditionFailure("init(schema:) names a table for every RecordKind") }
        return table
    }

    /// A declared index's table.
    /// - Throws: ``DiaryError/Code/server`` for a name ``StorageSchema/allIndices`` does not declare.
    func index(named name: String) throws -> IndexTable {
        guard let table = indices[name] else { throw DiaryError(.server, "the PostgreSQL store keeps no index named \(name)") }
        return table
    }

    /// A declared listing's table.
    /// - Throws: ``DiaryError/Code/server`` for a name ``StorageSchema/allListings`` does not declare.
    func listing(named name: String) throws -> ListingTable {
        guard let table = listings[name] else {
            throw DiaryError(.server, "the PostgreSQL store keeps no listing named \(name)")
        }
        return table
    }

    /// The declaration whose unique constraint has this name, for a unique violation's error.
    func index(withConstraint name: String) -> IndexTable? {
        indices.values.first { $0.uniqueConstraint?.name == name }
    }

    // MARK: - DDL

    /// The statements creating a kind's table.
    func createStatements(for kind: RecordKind, trigramSchema: SQLIdentifier) -> [String] {
        let table = qualified(recordTableName(kind))
        guard kind == .post else { return ["CREATE TABLE \(table) (key text PRIMARY KEY, doc jsonb NOT NULL)"] }
        return [
            """
            CREATE TABLE \(table) (key text PRIMARY KEY, doc jsonb NOT NULL, search_text text NOT NULL, \
            search_tags text[] NOT NULL, sort_micros bigint NOT NULL, sort_id uuid NOT NULL, author_id uuid NOT NULL, \
            is_anonymous boolean NOT NULL)
            """,
            "CREATE INDEX \(postSearchIndices.text) ON \(table) USING gin (search_text \(trigramSchema).gin_trgm_ops)",
            "CREATE INDEX \(postSearchIndices.tags) ON \(table) USING gin (search_tags)",
            "CREATE INDEX \(postFeedIndex) ON \(table) (sort_micros, sort_id)",
        ]
    }

    /// The statements creating an index's table.
    func createStatements(for index: IndexTable) -> [String] {
        let table = qualified(index.table)
        let key =
            if let constraint = index.uniqueConstraint {
                "CONSTRAINT \(constraint) UNIQUE (value) DEFERRABLE INITIALLY DEFERRED"
            } else {
                "PRIMARY KEY (value, key)"
            }
        return [
            "CREATE TABLE \(table) (value text NOT NULL, key text NOT NULL, author_id uuid, is_anonymous boolean, \(key))",
            "CREATE INDEX \(index.keyIndex) ON \(table) (key)",
        ]
    }

    /// The statements creating a listing's table.
    func createStatements(for listing: ListingTable) -> [String] {
        let table = qualified(listing.table)
        return [
            """
            CREATE TABLE \(table) (partition text NOT NULL, sort_micros bigint NOT NULL, sort_id uuid NOT NULL, \
            key text NOT NULL, author_id uuid, is_anonymous boolean, PRIMARY KEY (partition, sort_micros, sort_id))
            """,
            "CREATE INDEX \(listing.keyIndex) ON \(table) (key)",
        ]
    }
}
