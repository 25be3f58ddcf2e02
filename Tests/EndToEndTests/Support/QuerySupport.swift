import Foundation
import HearthCore
import HearthTesting
import Testing

/// JSON builders for Firestore REST structured queries, written as JSON text.
enum Q {
    /// A `Value` literal.
    static func int(_ value: Int64) -> String { #"{"integerValue":"\#(value)"}"# }
    static func double(_ value: Double) -> String {
        if value.isNaN { return #"{"doubleValue":"NaN"}"# }
        if value.isInfinite { return value > 0 ? #"{"doubleValue":"Infinity"}"# : #"{"doubleValue":"-Infinity"}"# }
        return #"{"doubleValue":\#(value)}"#
    }
    static func string(_ value: String) -> String { JSONValue.object(["stringValue": .string(value)]).jsonString }
    static func bool(_ value: Bool) -> String { #"{"booleanValue":\#(value)}"# }
    static let null = #"{"nullValue":null}"#
    static func array(_ values: [String]) -> String {
        #"{"arrayValue":{"values":[\#(values.joined(separator: ","))]}}"#
    }
    static func map(_ fields: String) -> String { #"{"mapValue":{"fields":\#(fields)}}"# }
    static func ref(_ relative: String) -> String { #"{"referenceValue":"\#(FS.name(relative))"}"# }
    static func timestamp(_ text: String) -> String { #"{"timestampValue":"\#(text)"}"# }

    /// A `fieldFilter`.
    static func field(_ path: String, _ op: String, _ value: String) -> String {
        #"{"fieldFilter":{"field":{"fieldPath":"\#(path)"},"op":"\#(op)","value":\#(value)}}"#
    }
    /// A `unaryFilter`.
    static func unary(_ path: String, _ op: String) -> String {
        #"{"unaryFilter":{"field":{"fieldPath":"\#(path)"},"op":"\#(op)"}}"#
    }
    static func and(_ filters: String...) -> String { composite("AND", filters) }
    static func or(_ filters: String...) -> String { composite("OR", filters) }
    static func composite(_ op: String, _ filters: [String]) -> String {
        #"{"compositeFilter":{"op":"\#(op)","filters":[\#(filters.joined(separator: ","))]}}"#
    }
    /// An `Order`.
    static func order(_ path: String, descending: Bool = false) -> String {
        #"{"field":{"fieldPath":"\#(path)"},"direction":"\#(descending ? "DESCENDING" : "ASCENDING")"}"#
    }
    /// A `Cursor`.
    static func cursor(_ values: [String], before: Bool) -> String {
        #"{"values":[\#(values.joined(separator: ","))],"before":\#(before)}"#
    }

    /// A `StructuredQuery` JSON object.
    static func query(
        _ collection: String, allDescendants: Bool = false, where filter: String? = nil, orderBy: [String] = [],
        startAt: String? = nil, endAt: String? = nil, offset: Int? = nil, limit: Int? = nil, select: [String]? = nil
    ) -> String {
        var members = [
            #""from":[{"collectionId":"\#(collection)"\#(allDescendants ? #","allDescendants":true"# : "")}]"#
        ]
        if let filter { members.append(#""where":\#(filter)"#) }
        if !orderBy.isEmpty { members.append(#""orderBy":[\#(orderBy.joined(separator: ","))]"#) }
        if let startAt { members.append(#""startAt":\#(startAt)"#) }
        if let endAt { members.append(#""endAt":\#(endAt)"#) }
        if let offset { members.append(#""offset":\#(offset)"#) }
        if let limit { members.append(#""limit":\#(limit)"#) }
        if let select {
            members.append(
                #""select":{"fields":[\#(select.map { #"{"fieldPath":"\#($0)"}"# }.joined(separator: ","))]}"#)
        }
        return "{\(members.joined(separator: ","))}"
    }
}

/// What `:runQuery` answered, checked for Firestore's stream shape.
struct QueryAnswer {
    /// The documents, in order.
    var documents: [JSONValue]
    /// A `transaction` named by the first element (with `newTransaction`).
    var transaction: String?
    /// The `explainMetrics` element, if any.
    var explain: JSONValue?

    /// The document IDs (last name segment), in order.
    var ids: [String] { documents.map { FS.id(of: $0["name"]?.stringValue ?? "") } }
    /// The full document names, in order.
    var names: [String] { documents.compactMap { $0["name"]?.stringValue } }

    /// `executionStats.debugStats.index_entries_scanned` as a number.
    var indexEntriesScanned: Int? { Self.stat(explain, "index_entries_scanned") }
    /// `executionStats.debugStats.documents_scanned` as a number.
    var documentsScanned: Int? { Self.stat(explain, "documents_scanned") }
    /// The `planSummary.indexesUsed[].plan` strings.
    var plans: [String] {
        explain?["planSummary"]?["indexesUsed"]?.arrayValue?.compactMap { $0["plan"]?.stringValue } ?? []
    }

    static func stat(_ explain: JSONValue?, _ name: String) -> Int? {
        explain?["executionStats"]?["debugStats"]?[name]?.stringValue.flatMap { Int($0) }
    }
}

extension HTTPClient {
    /// The `:runQuery` URL path for a parent (`nil`: the documents root; else a document path such as `users/a`).
    static func queryPath(_ parent: String?, _ verb: String) -> String {
        (parent.map { FS.path($0) } ?? FS.root()) + ":" + verb
    }

    /// POSTs `:runQuery` with a structured query JSON and optional extra body members (`"transaction":"…"`).
    func runQuery(_ structuredQuery: String, parent: String? = nil, extra: String? = nil) async throws -> HTTPResult {
        let body = #"{"structuredQuery":\#(structuredQuery)\#(extra.map { "," + $0 } ?? "")}"#
        return try await request("POST", Self.queryPath(parent, "runQuery"), json: body)
    }

    /// Runs a query that must succeed and checks the response shape: a JSON array of objects that each carry a
    /// `readTime`; a `document` per result; an empty result is one element with only the `readTime`.
    func query(
        _ structuredQuery: String, parent: String? = nil, extra: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> QueryAnswer {
        let result = try await runQuery(structuredQuery, parent: parent, extra: extra)
        let body = try expectOK(result, sourceLocation: sourceLocation)
        let elements = try #require(body.arrayValue, "not an array: \(result)", sourceLocation: sourceLocation)
        #expect(!elements.isEmpty, "a runQuery response has at least one element", sourceLocation: sourceLocation)
        var answer = QueryAnswer(documents: [])
        for (index, element) in elements.enumerated() {
            #expect(
                element["readTime"]?.stringValue != nil, "element \(index) has no readTime: \(element.jsonString)",
                sourceLocation: sourceLocation)
            if let document = element["document"] { answer.documents.append(document) }
            if let explain = element["explainMetrics"] { answer.explain = explain }
            if let transaction = element["transaction"]?.stringValue {
                #expect(index == 0, "only the first element names the transaction", sourceLocation: sourceLocation)
                answer.transaction = transaction
            }
        }
        return answer
    }

    /// The IDs a query returns, in order.
    func queryIDs(
        _ structuredQuery: String, parent: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        try await query(structuredQuery, parent: parent, sourceLocation: sourceLocation).ids
    }

    /// POSTs `:runAggregationQuery` with a `structuredAggregationQuery` built from a query and aggregations JSON.
    func runAggregation(
        _ structuredQuery: String, aggregations: String, parent: String? = nil, extra: String? = nil
    ) async throws -> HTTPResult {
        let body =
            #"{"structuredAggregationQuery":{"structuredQuery":\#(structuredQuery),"aggregations":\#(aggregations)}\#(extra.map { "," + $0 } ?? "")}"#
        return try await request("POST", Self.queryPath(parent, "runAggregationQuery"), json: body)
    }

    /// Runs an aggregation that must succeed; returns the single element (`result`, `readTime`, …).
    func aggregate(
        _ structuredQuery: String, aggregations: String, parent: String? = nil, extra: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let result = try await runAggregation(structuredQuery, aggregations: aggregations, parent: parent, extra: extra)
        let body = try expectOK(result, sourceLocation: sourceLocation)
        let elements = try #require(body.arrayValue, "not an array: \(result)", sourceLocation: sourceLocation)
        #expect(elements.count == 1, "\(result)", sourceLocation: sourceLocation)
        let element = try #require(elements.first, sourceLocation: sourceLocation)
        #expect(element["readTime"]?.stringValue != nil, "\(result)", sourceLocation: sourceLocation)
        return element
    }

    /// `:beginTransaction`; returns the transaction ID.
    func beginTransaction(
        readOnly: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> String
    {
        let options = readOnly ? #"{"options":{"readOnly":{}}}"# : #"{"options":{"readWrite":{}}}"#
        let body = try expectOK(
            try await request("POST", "\(FS.root()):beginTransaction", json: options), sourceLocation: sourceLocation)
        return try #require(body["transaction"]?.stringValue, "\(body.jsonString)", sourceLocation: sourceLocation)
    }

    /// `:commit` with writes in a transaction.
    func commit(_ writes: String, transaction: String) async throws -> HTTPResult {
        try await request(
            "POST", "\(FS.root()):commit", json: #"{"writes":\#(writes),"transaction":"\#(transaction)"}"#)
    }

    /// `:rollback`.
    func rollback(_ transaction: String) async throws -> HTTPResult {
        try await request("POST", "\(FS.root()):rollback", json: #"{"transaction":"\#(transaction)"}"#)
    }

    /// Writes documents with `:commit` in batches of up to 500 `update` writes, `concurrency` commits at a time.
    /// `fields(i)` gives document `i`'s fields JSON; IDs are `id(i)`.
    func seed(
        _ collection: String, count: Int, concurrency: Int = 4, id: @escaping @Sendable (Int) -> String,
        fields: @escaping @Sendable (Int) -> String
    ) async throws {
        let batches = stride(from: 0, to: count, by: 500).map { $0..<min($0 + 500, count) }
        for start in stride(from: 0, to: batches.count, by: concurrency) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in batches[start..<min(start + concurrency, batches.count)] {
                    group.addTask {
                        let writes = batch.map { i in
                            #"{"update":{"name":"\#(FS.name("\(collection)/\(id(i))"))","fields":\#(fields(i))}}"#
                        }
                        let result = try await self.commit("[\(writes.joined(separator: ","))]")
                        guard result.status == 200 else { throw HarnessError("seeding commit failed: \(result)") }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// A shared server per suite started with `--indexes FILE` holding the given `indexes` JSON array — in
/// production mode with rules that allow everything, since development mode answers queries without indexes.
extension Trait where Self == SharedHearth {
    static func withIndexes(_ label: String, _ indexes: String) -> SharedHearth {
        // One file per label, rewritten with the same content on every run, so runs leave nothing new behind.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-e2e-\(label).indexes.json")
        _ = FileManager.default.createFile(atPath: url.path, contents: Data(#"{"indexes":\#(indexes)}"#.utf8))
        var options = HearthProcess.Options.production
        options.extraArguments += ["--indexes", url.path]
        return SharedHearth(options: options)
    }
}

extension HearthProcess.Options {
    /// Production mode (no `--dev`) with rules that allow every read and write: where a missing composite index
    /// is `FAILED_PRECONDITION` rather than a development-mode scan.
    static var production: HearthProcess.Options {
        var options = HearthProcess.Options()
        options.dev = false
        options.extraArguments = ["--rules", OpenRules.path]
        return options
    }
}

/// A composite index entry of `firestore.indexes.json`.
func indexJSON(_ collectionGroup: String, scope: String = "COLLECTION", _ fields: [(String, String)]) -> String {
    let list = fields.map { path, mode in
        mode == "CONTAINS"
            ? #"{"fieldPath":"\#(path)","arrayConfig":"CONTAINS"}"# : #"{"fieldPath":"\#(path)","order":"\#(mode)"}"#
    }
    return
        #"{"collectionGroup":"\#(collectionGroup)","queryScope":"\#(scope)","fields":[\#(list.joined(separator: ","))]}"#
}
