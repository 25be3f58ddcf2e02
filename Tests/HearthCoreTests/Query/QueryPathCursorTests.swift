import Testing

@testable import HearthCore

/// Issue #17: `__name__` cursors by path, numeric IDs as the least IDs, kindless queries, and what readers accept
/// that writers do not.
@Suite struct QueryPathCursorTests {
    typealias F = QueryFixture

    static let name = [QueryOrder(field: .documentName)]

    static func reference(_ path: String) -> Value { .reference("projects/demo/databases/(default)/documents/\(path)") }

    @Test func aPlainQuerysCursorOutsideItsCollectionLeavesNothing() {
        for cursor in ["aaa/d", "zzz/d", "c/d1/c/d9"] {
            var query = StructuredQuery(parent: .root, collectionID: "c", orderBy: Self.name)
            query.startAt = QueryCursor(values: [Self.reference(cursor)], before: true)
            #expect(!QueryMatcher.matches(path: F.path("c/d2"), fields: [:], query: query.normalized()), "\(cursor)")
            query.startAt = QueryCursor(values: [Self.reference("c/d1")], before: true)
            #expect(QueryMatcher.matches(path: F.path("c/d2"), fields: [:], query: query.normalized()))
        }
    }

    @Test func aCollectionGroupCursorNamingAParentScopesTheGroup() {
        var query = StructuredQuery(parent: .root, collectionID: "g", allDescendants: true, orderBy: Self.name)
        query.startAt = QueryCursor(values: [Self.reference("r/b")], before: true)
        query.endAt = QueryCursor(values: [Self.reference("r/b0")], before: true)
        let normalized = query.normalized()
        let inside = ["r/b/g/1", "r/b/x/y/g/2"].map {
            QueryMatcher.matches(path: F.path($0), fields: [:], query: normalized)
        }
        let outside = ["r/a/g/1", "r/b0/g/1", "g/1"].map {
            QueryMatcher.matches(path: F.path($0), fields: [:], query: normalized)
        }
        #expect(inside == [true, true])
        #expect(outside == [false, false, false])
    }

    @Test func numericIDsSortBeforeEveryOtherIDNumerically() {
        let ordered = ["__id-9223372036854775808__", "__id-1__", "__id7__", "__id42__", "!", "0", "A", "_", "a"]
        for (index, id) in ordered.enumerated() {
            for (other, later) in ordered.enumerated() {
                let result = QueryMatcher.comparePaths(["c", id], ["c", later])
                #expect(result.signum() == (index < other ? -1 : index == other ? 0 : 1), "\(id) vs \(later)")
            }
        }
        #expect(QueryMatcher.numericID("__id12x__") == nil && QueryMatcher.numericID("__name__") == nil)
    }

    @Test func aKindlessQueryHoldsEveryDocumentBelowItsParent() throws {
        let query = try StructuredQuery(
            firestoreJSON: try JSONParser.parse(Array(#"{"from":[{"allDescendants":true}]}"#.utf8)),
            at: "structuredQuery", database: DatabaseName(project: "demo"), parent: F.path("c/d"))
        #expect(query.isKindless)
        #expect(query.contains(path: F.path("c/d/x/1")) && query.contains(path: F.path("c/d/x/1/y/2")))
        #expect(!query.contains(path: F.path("c/d")) && !query.contains(path: F.path("c/e/x/1")))
    }

    @Test func storedFieldsWithReservedNamesStayReadable() throws {
        let json = try JSONParser.parse(
            Array(#"{"__name__":{"integerValue":"1"},"m":{"mapValue":{"fields":{"__x__":{"nullValue":null}}}}}"#.utf8))
        #expect(throws: HearthError.self) { try Value.decodeFields(json, at: "fields") }
        let fields = try Value.decodeStoredFields(json)
        #expect(fields["__name__"] == .integer(1))
        #expect(fields["m"] == .map(["__x__": .null]))
    }

    @Test func protoFieldNamesReadAsTheirJSONNames() throws {
        let json = try JSONParser.parse(
            Array(
                #"{"from":[{"collection_id":"c"}],"order_by":[{"field":{"field_path":"a"}}],"where":{"field_filter":{"field":{"field_path":"a"},"op":"EQUAL","value":{"integer_value":"1"}}}}"#
                    .utf8))
        let query = try StructuredQuery(
            firestoreJSON: json, at: "structuredQuery", database: DatabaseName(project: "demo"), parent: .root)
        #expect(query.collectionID == "c")
        #expect(query.orderBy.map(\.field) == [F.field("a")])
        #expect(query.filter == .field(F.field("a"), .equal, .integer(1)))
        #expect(ProtoFieldName.jsonName("structured_query") == "structuredQuery")
        #expect(ProtoFieldName.jsonName("fieldPath") == "fieldPath")
    }

    @Test func queryOperandsKeepNanosecondsWhileWrittenValuesDoNot() throws {
        let json = try JSONParser.parse(Array(#"{"timestampValue":"2024-01-01T00:00:00.000001001Z"}"#.utf8))
        #expect(try Value(queryOperandJSON: json, at: "") == .timestamp(Timestamp(seconds: 1_704_067_200, nanos: 1001)))
        #expect(try Value(firestoreJSON: json, at: "") == .timestamp(Timestamp(seconds: 1_704_067_200, nanos: 1000)))
    }
}
