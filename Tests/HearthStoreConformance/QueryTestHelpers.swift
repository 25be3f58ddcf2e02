import HearthCore
public import HearthStore

extension DocumentStoreConformance {
    /// The composite indexes every engine's suite store declares, for the checks that need one: an equality with
    /// an order on another field, an array-contains with an order, and a collection-group filter.
    public static let indexes: [IndexDefinition] = [
        IndexDefinition(
            collectionID: "cities", scope: .collection,
            fields: [.init(path: field("state"), mode: .ascending), .init(path: field("pop"), mode: .descending)]),
        IndexDefinition(
            collectionID: "cities", scope: .collection,
            fields: [.init(path: field("tags"), mode: .arrayContains), .init(path: field("pop"), mode: .ascending)]),
        IndexDefinition(
            collectionID: "landmarks", scope: .collectionGroup, fields: [.init(path: field("type"), mode: .ascending)]),
    ]

    /// Waits (at most about 30 s) until every declared index is built: on an empty store the builds are one short
    /// step each, but they run in the background.
    public static func waitForIndexes(_ store: any DocumentStore) async throws {
        var waits = 0
        while !store.indexStatuses().allSatisfy(\.ready), waits < 3_000 {
            try await Task.sleep(for: .milliseconds(10))
            waits += 1
        }
    }
}

/// A field path from dotted text.
func field(_ text: String) -> FieldPath {
    FieldPath(segments: text.split(separator: ".").map(String.init))
}

/// A query of the `cities` collection.
func cities(
    _ filter: QueryFilter? = nil, orderBy: [QueryOrder] = [], startAt: QueryCursor? = nil, endAt: QueryCursor? = nil,
    offset: Int = 0, limit: Int? = nil
) -> StructuredQuery {
    StructuredQuery(
        parent: .root, collectionID: "cities", filter: filter, orderBy: orderBy, startAt: startAt, endAt: endAt,
        offset: offset, limit: limit)
}

/// `field op value`.
func filter(_ name: String, _ op: FieldOperator, _ value: Value) -> QueryFilter {
    .field(field(name), op, value)
}

/// The IDs of a query's documents, in order.
func ids(_ store: any DocumentStore, _ query: StructuredQuery) throws -> [String] {
    try store.runQuery(query, transaction: nil).documents.map(\.path.lastSegment)
}

/// The full paths of a query's documents, in order.
func paths(_ store: any DocumentStore, _ query: StructuredQuery) throws -> [String] {
    try store.runQuery(query, transaction: nil).documents.map(\.path.description)
}

/// A string array value.
func strings(_ items: String...) -> Value {
    .array(items.map(Value.string))
}

/// A reference to the document at `text` in the test database, as a `__name__` value.
func reference(_ text: String) -> Value {
    .reference("projects/test/databases/(default)/documents/\(text)")
}

/// Five cities with a state, a population and tags, one without either, landmarks below two of them and below a
/// country (for collection groups), and a town that no cities query may return. Waits for the suite's indexes
/// first, so every check starts with them ready.
func seedCities(_ store: any DocumentStore) async throws {
    try await DocumentStoreConformance.waitForIndexes(store)
    func city(_ state: String, _ pop: Int64, _ tags: [String]) -> [String: Value] {
        ["state": .string(state), "pop": .integer(pop), "tags": .array(tags.map(Value.string))]
    }
    try await store.commitOrThrow([
        set("cities/la", city("CA", 3_900_000, ["west", "coast"])),
        set("cities/sf", city("CA", 860_000, ["west", "coast", "tech"])),
        set("cities/ny", city("NY", 8_400_000, ["east", "coast"])),
        set("cities/chi", city("IL", 2_700_000, ["midwest"])),
        set("cities/aus", city("TX", 960_000, ["south", "tech"])),
        set("cities/ghost", ["name": .string("Ghost Town")]),
        set("cities/sf/landmarks/gg", ["type": .string("bridge")]),
        set("cities/ny/landmarks/moma", ["type": .string("museum")]),
        set("cities/ny/landmarks/bb", ["type": .string("bridge")]),
        set("countries/us/landmarks/liberty", ["type": .string("statue")]),
        set("countries/us/landmarks/gw", ["type": .string("bridge")]),
        set("towns/t1", city("CA", 100, ["tech"])),
    ])
}
