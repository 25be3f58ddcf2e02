#!/usr/bin/env python3
"""Protobuf fixtures for Hearth's codec, made by the official Python protobuf runtime.

Builds a table of google.firestore.v1 messages with `google-cloud-firestore`'s generated types (the raw protobuf
classes behind its proto-plus wrappers), serializes each deterministically (fields in number order, map keys
sorted: the bytes Hearth's encoder must produce too) and writes them as hex into
Tests/HearthGRPCTests/ProtoFixtures.swift, where the Swift tests decode them into Hearth's model and encode the
model back to the same bytes.

Some fixtures are not what an encoder writes but what a decoder must accept: unknown fields of every wire type
(groups included), repeated numbers unpacked, messages nested past the limit. The runtime parses each of those
itself here, so the fixture is what protobuf says it is.

  scripts/proto-fixtures.py            rewrite the Swift file
  scripts/proto-fixtures.py --check    exit 1 if the Swift file differs from what the runtime produces now
"""
import math
import pathlib
import sys

from google.cloud.firestore_v1.types import aggregation_result, common, document, firestore, query, query_profile, write
from google.protobuf import struct_pb2, timestamp_pb2, wrappers_pb2
from google.rpc import status_pb2
from google.type import latlng_pb2

OUT = pathlib.Path(__file__).resolve().parent.parent / "Tests/HearthGRPCTests/ProtoFixtures.swift"

Value = document.Value.pb()
MapValue = document.MapValue.pb()
ArrayValue = document.ArrayValue.pb()
Document = document.Document.pb()
Precondition = common.Precondition.pb()
DocumentMask = common.DocumentMask.pb()
TransactionOptions = common.TransactionOptions.pb()
Write = write.Write.pb()
DocumentTransform = write.DocumentTransform.pb()
FieldTransform = DocumentTransform.FieldTransform
WriteResult = write.WriteResult.pb()
DocumentChange = write.DocumentChange.pb()
DocumentDelete = write.DocumentDelete.pb()
DocumentRemove = write.DocumentRemove.pb()
ExistenceFilter = write.ExistenceFilter.pb()
StructuredQuery = query.StructuredQuery.pb()
Cursor = query.Cursor.pb()
Filter = StructuredQuery.Filter
FieldFilter = StructuredQuery.FieldFilter
UnaryFilter = StructuredQuery.UnaryFilter
CompositeFilter = StructuredQuery.CompositeFilter
FieldReference = StructuredQuery.FieldReference
Order = StructuredQuery.Order
F = firestore
CommitRequest = F.CommitRequest.pb()
CommitResponse = F.CommitResponse.pb()
GetDocumentRequest = F.GetDocumentRequest.pb()
BatchGetDocumentsRequest = F.BatchGetDocumentsRequest.pb()
BatchGetDocumentsResponse = F.BatchGetDocumentsResponse.pb()
RunQueryRequest = F.RunQueryRequest.pb()
RunQueryResponse = F.RunQueryResponse.pb()
BeginTransactionRequest = F.BeginTransactionRequest.pb()
BeginTransactionResponse = F.BeginTransactionResponse.pb()
RollbackRequest = F.RollbackRequest.pb()
ListenRequest = F.ListenRequest.pb()
ListenResponse = F.ListenResponse.pb()
Target = F.Target.pb()
TargetChange = F.TargetChange.pb()
WriteRequest = F.WriteRequest.pb()
WriteResponse = F.WriteResponse.pb()
ListDocumentsRequest = F.ListDocumentsRequest.pb()
ListCollectionIdsRequest = F.ListCollectionIdsRequest.pb()
UpdateDocumentRequest = F.UpdateDocumentRequest.pb()
DeleteDocumentRequest = F.DeleteDocumentRequest.pb()
CreateDocumentRequest = F.CreateDocumentRequest.pb()
BatchWriteRequest = F.BatchWriteRequest.pb()
BatchWriteResponse = F.BatchWriteResponse.pb()
PartitionQueryRequest = F.PartitionQueryRequest.pb()

DB = "projects/demo/databases/(default)"
ROOT = DB + "/documents"


def ts(seconds, nanos=0):
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


def ref(path):
    return FieldReference(field_path=path)


def every_value_kind():
    """One field of each kind, with the edge values: negative and extreme integers, NaN and infinities."""
    return {
        "null": Value(null_value=struct_pb2.NULL_VALUE),
        "yes": Value(boolean_value=True),
        "no": Value(boolean_value=False),
        "zero": Value(integer_value=0),
        "negative": Value(integer_value=-5),
        "min": Value(integer_value=-(2**63)),
        "max": Value(integer_value=2**63 - 1),
        "half": Value(double_value=1.5),
        "zeroDouble": Value(double_value=0.0),
        "nan": Value(double_value=math.nan),
        "inf": Value(double_value=math.inf),
        "negInf": Value(double_value=-math.inf),
        "time": Value(timestamp_value=ts(1_700_000_000, 123_456_000)),
        "before1970": Value(timestamp_value=ts(-86_400, 5_000)),
        "text": Value(string_value="héllo ✓"),
        "empty": Value(string_value=""),
        "blob": Value(bytes_value=b"\x00\xff\x10"),
        "ref": Value(reference_value=ROOT + "/users/bob"),
        "place": Value(geo_point_value=latlng_pb2.LatLng(latitude=51.5, longitude=-0.125)),
        "origin": Value(geo_point_value=latlng_pb2.LatLng()),
        "list": Value(array_value=ArrayValue(values=[Value(integer_value=1), Value(string_value="a")])),
        "emptyList": Value(array_value=ArrayValue()),
        "nested": Value(map_value=MapValue(fields={"x": Value(map_value=MapValue(fields={"y": Value(integer_value=1)}))})),
        "emptyMap": Value(map_value=MapValue()),
    }


def nested_map(depth):
    value = Value(integer_value=1)
    for _ in range(depth):
        value = Value(map_value=MapValue(fields={"m": value}))
    return value


def commit_of(fields):
    return CommitRequest(database=DB, writes=[Write(update=Document(name=ROOT + "/users/alice", fields=fields))])


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(number, wire):
    return varint(number << 3 | wire)


def length_delimited(number, payload):
    return tag(number, 2) + varint(len(payload)) + payload


# Unknown fields of every wire type: varint, fixed64, length-delimited, a group holding fields of its own (and a
# group inside it), fixed32.
UNKNOWN = (
    tag(99, 0) + varint(300)
    + tag(98, 1) + bytes(8)
    + length_delimited(97, b"skipped")
    + tag(96, 3) + tag(1, 0) + varint(7) + tag(2, 3) + tag(1, 5) + bytes(4) + tag(2, 4) + tag(96, 4)
    + tag(95, 5) + bytes(4)
)


def det(message):
    return message.SerializeToString(deterministic=True)


def fixtures():
    """(name, bytes, what it is). Canonical fixtures are deterministic serializations of a message."""
    table = []

    def add(name, message, note):
        table.append((name, det(message), note))

    # ── requests ──
    add("commitEveryValue", commit_of(every_value_kind()), "CommitRequest: one update holding every value kind")
    transforms = [
        FieldTransform(field_path="updatedAt", set_to_server_value=FieldTransform.REQUEST_TIME),
        FieldTransform(field_path="count", increment=Value(integer_value=-2)),
        FieldTransform(field_path="best", maximum=Value(double_value=9.5)),
        FieldTransform(field_path="worst", minimum=Value(integer_value=0)),
        FieldTransform(field_path="tags", append_missing_elements=ArrayValue(values=[Value(string_value="x")])),
        FieldTransform(field_path="`odd.name`", remove_all_from_array=ArrayValue(values=[Value(null_value=0)])),
    ]
    add(
        "commitWrites",
        CommitRequest(
            database=DB,
            writes=[
                Write(
                    update=Document(name=ROOT + "/users/alice", fields={"a": Value(integer_value=1)}),
                    update_mask=DocumentMask(field_paths=["a", "b.c", "`odd.name`"]),
                    update_transforms=transforms,
                    current_document=Precondition(exists=True),
                ),
                Write(delete=ROOT + "/users/bob", current_document=Precondition(update_time=ts(1_700_000_001, 5_000))),
                Write(
                    transform=DocumentTransform(
                        document=ROOT + "/counters/c",
                        field_transforms=[FieldTransform(field_path="n", increment=Value(integer_value=1))],
                    )
                ),
                Write(update=Document(name=ROOT + "/users/carol"), current_document=Precondition(exists=False)),
            ],
            transaction=b"\x01\x02\x03",
        ),
        "CommitRequest: update with mask, transforms and precondition; delete; transform; empty create; transaction",
    )
    add("commitEmpty", CommitRequest(database=DB), "CommitRequest with no writes")
    table.append((
        "commitNanosecondTime",
        det(commit_of({"t": Value(timestamp_value=ts(1_700_000_000, 123_456_789))})),
        "a timestamp with nanoseconds, stored at microseconds",
    ))
    table.append(("commitNested20", det(commit_of({"deep": nested_map(20)})), "a map nested 20 levels: allowed"))
    # Built by hand: the runtime itself refuses to hold a message nested this deep.
    deep = det(Value(integer_value=1))
    for _ in range(40):
        deep = length_delimited(6, length_delimited(1, length_delimited(1, b"m") + length_delimited(2, deep)))
    entry = length_delimited(1, b"deep") + length_delimited(2, deep)
    doc = length_delimited(1, (ROOT + "/users/alice").encode()) + length_delimited(2, entry)
    table.append((
        "commitNested40",
        length_delimited(1, DB.encode()) + length_delimited(2, length_delimited(1, doc)),
        "a map nested 40 levels: past the 100-message nesting limit",
    ))
    table.append((
        "commitReservedName",
        det(commit_of({"__secret__": Value(integer_value=1)})),
        "a field name Firestore reserves",
    ))
    table.append((
        "commitNestedArray",
        det(commit_of({"a": Value(array_value=ArrayValue(values=[Value(array_value=ArrayValue())]))})),
        "an array directly inside an array",
    ))
    # The same update with unknown fields at the top level, in the Write, in the Document and in a Value.
    value = det(Value(integer_value=1)) + UNKNOWN
    entry = length_delimited(1, b"a") + length_delimited(2, value)
    doc = length_delimited(1, (ROOT + "/users/alice").encode()) + length_delimited(2, entry) + UNKNOWN
    wrote = length_delimited(1, doc) + UNKNOWN
    unknown = UNKNOWN + length_delimited(1, DB.encode()) + length_delimited(2, wrote) + UNKNOWN
    parsed = CommitRequest.FromString(unknown)
    parsed.DiscardUnknownFields()
    assert parsed == commit_of({"a": Value(integer_value=1)}), "the runtime reads the unknown fields differently"
    table.append(("commitUnknownFields", unknown, "commitA with unknown fields of every wire type at every level"))
    add("commitA", commit_of({"a": Value(integer_value=1)}), "CommitRequest setting a = 1")

    query_message = StructuredQuery(
        select=StructuredQuery.Projection(fields=[ref("name"), ref("age")]),
        from_=[StructuredQuery.CollectionSelector(collection_id="users")],
        where=Filter(
            composite_filter=CompositeFilter(
                op=CompositeFilter.AND,
                filters=[
                    Filter(field_filter=FieldFilter(field=ref("age"), op=FieldFilter.GREATER_THAN_OR_EQUAL, value=Value(integer_value=18))),
                    Filter(field_filter=FieldFilter(field=ref("city"), op=FieldFilter.IN, value=Value(array_value=ArrayValue(values=[Value(string_value="SF"), Value(string_value="LA")])))),
                    Filter(
                        composite_filter=CompositeFilter(
                            op=CompositeFilter.OR,
                            filters=[
                                Filter(field_filter=FieldFilter(field=ref("tags"), op=FieldFilter.ARRAY_CONTAINS, value=Value(string_value="x"))),
                                Filter(unary_filter=UnaryFilter(op=UnaryFilter.IS_NULL, field=ref("nickname"))),
                            ],
                        )
                    ),
                ],
            )
        ),
        order_by=[Order(field=ref("age"), direction=StructuredQuery.DESCENDING), Order(field=ref("__name__"), direction=StructuredQuery.ASCENDING)],
        start_at=Cursor(values=[Value(integer_value=65)], before=True),
        end_at=Cursor(values=[Value(integer_value=18), Value(reference_value=ROOT + "/users/a")]),
        offset=2,
        limit=wrappers_pb2.Int32Value(value=10),
    )
    add(
        "runQuery",
        RunQueryRequest(parent=ROOT, structured_query=query_message, new_transaction=TransactionOptions(read_only=TransactionOptions.ReadOnly())),
        "RunQueryRequest: select, AND/OR/IN/ARRAY_CONTAINS/IS_NULL, orders, cursors, offset, limit, new read-only transaction",
    )
    add(
        "runQueryGroup",
        RunQueryRequest(
            parent=ROOT + "/users/alice",
            structured_query=StructuredQuery(
                from_=[StructuredQuery.CollectionSelector(collection_id="posts", all_descendants=True)],
                where=Filter(field_filter=FieldFilter(field=ref("n"), op=FieldFilter.NOT_IN, value=Value(array_value=ArrayValue(values=[Value(array_value=ArrayValue(values=[Value(integer_value=1)]))])))),
                limit=wrappers_pb2.Int32Value(value=0),
            ),
            transaction=b"tx",
            explain_options=query_profile.ExplainOptions.pb()(analyze=True),
        ),
        "RunQueryRequest: collection group under a document, NOT_IN holding an array, limit 0, transaction, explain",
    )
    add(
        "runQueryFindNearest",
        RunQueryRequest(parent=ROOT, structured_query=StructuredQuery(from_=[StructuredQuery.CollectionSelector(collection_id="v")], find_nearest=StructuredQuery.FindNearest(limit=wrappers_pb2.Int32Value(value=3)))),
        "vector search: refused",
    )
    token = b"\x01" + (42).to_bytes(8, "big")
    add(
        "listenAddQuery",
        ListenRequest(
            database=DB,
            add_target=Target(
                query=Target.QueryTarget(
                    parent=ROOT,
                    structured_query=StructuredQuery(
                        from_=[StructuredQuery.CollectionSelector(collection_id="rooms")],
                        where=Filter(field_filter=FieldFilter(field=ref("open"), op=FieldFilter.EQUAL, value=Value(boolean_value=True))),
                        order_by=[Order(field=ref("name"), direction=StructuredQuery.ASCENDING)],
                        limit=wrappers_pb2.Int32Value(value=5),
                    ),
                ),
                target_id=2,
                resume_token=token,
            ),
        ),
        "ListenRequest adding a query target with a resume token",
    )
    add(
        "listenAddDocuments",
        ListenRequest(database=DB, add_target=Target(documents=Target.DocumentsTarget(documents=[ROOT + "/users/alice", ROOT + "/users/bob"]), target_id=1, once=True)),
        "ListenRequest adding a documents target, once",
    )
    add("listenRemove", ListenRequest(database=DB, remove_target=2), "ListenRequest removing target 2")
    add("listenRemoveNegative", ListenRequest(database=DB, remove_target=-1), "remove_target -1: a ten-byte varint")
    add(
        "listenAddQueryWithLabels",
        ListenRequest(database=DB, labels={"goog-listen-tags": "x"}, add_target=Target(documents=Target.DocumentsTarget(documents=[ROOT + "/users/alice"]), target_id=1)),
        "labels are read and ignored",
    )
    Aggregation = query.StructuredAggregationQuery.pb().Aggregation
    add(
        "runAggregationQuery",
        F.RunAggregationQueryRequest.pb()(
            parent=ROOT,
            structured_aggregation_query=query.StructuredAggregationQuery.pb()(
                structured_query=StructuredQuery(from_=[StructuredQuery.CollectionSelector(collection_id="orders")]),
                aggregations=[
                    Aggregation(count=Aggregation.Count(up_to=wrappers_pb2.Int64Value(value=100)), alias="n"),
                    Aggregation(sum=Aggregation.Sum(field=ref("total"))),
                    Aggregation(avg=Aggregation.Avg(field=ref("total")), alias="mean"),
                ],
            ),
        ),
        "RunAggregationQueryRequest: count up to 100, sum (alias left to the server), avg",
    )
    add(
        "runAggregationQueryResponse",
        F.RunAggregationQueryResponse.pb()(
            result=aggregation_result.AggregationResult.pb()(aggregate_fields={"n": Value(integer_value=3), "field_1": Value(double_value=7.5), "mean": Value(null_value=0)}),
            read_time=ts(1_700_000_009),
        ),
        "RunAggregationQueryResponse",
    )
    add("writeHandshake", WriteRequest(database=DB), "the Write stream's handshake")
    add(
        "writeWithWrites",
        WriteRequest(database=DB, stream_id="s1", stream_token=b"tok", writes=[Write(delete=ROOT + "/users/bob")]),
        "a Write stream message with a write and the last token",
    )
    add(
        "getDocument",
        GetDocumentRequest(name=ROOT + "/users/alice", mask=DocumentMask(field_paths=["a"]), transaction=b"\x07"),
        "GetDocumentRequest with a mask in a transaction",
    )
    add(
        "batchGet",
        BatchGetDocumentsRequest(database=DB, documents=[ROOT + "/users/alice", ROOT + "/users/bob"], new_transaction=TransactionOptions(read_write=TransactionOptions.ReadWrite())),
        "BatchGetDocumentsRequest beginning a read-write transaction",
    )
    add("beginReadOnly", BeginTransactionRequest(database=DB, options=TransactionOptions(read_only=TransactionOptions.ReadOnly())), "BeginTransactionRequest, read-only")
    add("rollback", RollbackRequest(database=DB, transaction=b"\x09\x08"), "RollbackRequest")

    # ── answers ──
    add(
        "commitResponse",
        CommitResponse(
            write_results=[WriteResult(update_time=ts(1_700_000_000, 1_000), transform_results=[Value(integer_value=5), Value(timestamp_value=ts(1_700_000_000, 1_000))]), WriteResult()],
            commit_time=ts(1_700_000_000, 1_000),
        ),
        "CommitResponse: a result with transform results, a delete's empty result",
    )
    stored = Document(
        name=ROOT + "/users/alice",
        fields={"name": Value(string_value="Alice"), "age": Value(integer_value=30), "tags": Value(array_value=ArrayValue(values=[Value(string_value="a")]))},
        create_time=ts(1_600_000_000),
        update_time=ts(1_700_000_000, 2_000),
    )
    add("runQueryResponse", RunQueryResponse(document=stored, transaction=b"tx", read_time=ts(1_700_000_005)), "RunQueryResponse with a document, opening a transaction")
    add("runQueryResponseDone", RunQueryResponse(read_time=ts(1_700_000_005), done=True), "the last RunQueryResponse")
    add("batchGetFound", BatchGetDocumentsResponse(found=stored, read_time=ts(1_700_000_005)), "BatchGetDocumentsResponse: found")
    add("batchGetMissing", BatchGetDocumentsResponse(missing=ROOT + "/users/zed", transaction=b"tx", read_time=ts(1_700_000_005)), "BatchGetDocumentsResponse: missing")
    add("beginResponse", BeginTransactionResponse(transaction=b"\x01\x02"), "BeginTransactionResponse")
    add("listenAdd", ListenResponse(target_change=TargetChange(target_change_type=TargetChange.ADD, target_ids=[2])), "ADD of target 2")
    add(
        "listenMarker",
        ListenResponse(target_change=TargetChange(resume_token=token, read_time=ts(1_700_000_006, 7_000))),
        "the NO_CHANGE consistency marker: no type written, a token and a read time",
    )
    add(
        "listenRemoveCause",
        ListenResponse(target_change=TargetChange(target_change_type=TargetChange.REMOVE, target_ids=[3, 300], cause=status_pb2.Status(code=7, message="Missing or insufficient permissions."))),
        "REMOVE with a cause",
    )
    add("listenDocumentChange", ListenResponse(document_change=DocumentChange(document=stored, target_ids=[1, 2])), "documentChange")
    add("listenDocumentDelete", ListenResponse(document_delete=DocumentDelete(document=ROOT + "/users/alice", removed_target_ids=[1], read_time=ts(1_700_000_007))), "documentDelete")
    add("listenDocumentRemove", ListenResponse(document_remove=DocumentRemove(document=ROOT + "/users/alice", removed_target_ids=[2], read_time=ts(1_700_000_007))), "documentRemove")
    add("listenFilter", ListenResponse(filter=ExistenceFilter(target_id=2, count=3)), "an existence filter")
    add("writeHandshakeResponse", WriteResponse(stream_id="s1", stream_token=b"\x00\x01"), "the Write stream's handshake answer")
    add(
        "writeResponse",
        WriteResponse(stream_token=b"\x00\x02", write_results=[WriteResult(update_time=ts(1_700_000_008))], commit_time=ts(1_700_000_008)),
        "a Write stream answer with a result",
    )

    add(
        "mapOrder",
        Value(map_value=MapValue(fields={k: Value(integer_value=i) for i, k in enumerate(["b", "a", "ab", "abc", "ba", "", "é", "z"])})),
        "a map whose names are prefixes of one another: the runtime's deterministic key order",
    )

    add(
        "listDocuments",
        ListDocumentsRequest(parent=ROOT + "/users/alice", collection_id="posts", page_size=20, page_token="tok", order_by="a desc", mask=DocumentMask(field_paths=["a", "b.c"]), transaction=b"\x01\x02", show_missing=True),
        "ListDocumentsRequest: every member, with a transaction",
    )
    add(
        "listCollectionIDs",
        ListCollectionIdsRequest(parent=ROOT, page_size=5, page_token="abc"),
        "ListCollectionIdsRequest under the documents root",
    )

    add(
        "updateDocument",
        UpdateDocumentRequest(document=Document(name=ROOT + "/users/alice", fields={"a": Value(integer_value=1)}), update_mask=DocumentMask(field_paths=["a"]), mask=DocumentMask(field_paths=["b"]), current_document=Precondition(exists=True)),
        "UpdateDocumentRequest: a merge with a precondition and a response mask",
    )
    add(
        "deleteDocument",
        DeleteDocumentRequest(name=ROOT + "/users/bob", current_document=Precondition(exists=True)),
        "DeleteDocumentRequest with a precondition",
    )
    add(
        "createDocument",
        CreateDocumentRequest(parent=ROOT + "/users/alice", collection_id="posts", document_id="p1", document=Document(fields={"t": Value(string_value="hi")}), mask=DocumentMask(field_paths=["t"])),
        "CreateDocumentRequest under a document, with an ID and a response mask",
    )
    add(
        "batchWrite",
        BatchWriteRequest(database=DB, writes=[Write(delete=ROOT + "/a/1"), Write(update=Document(name=ROOT + "/a/2", fields={"n": Value(integer_value=2)}))], labels={"k": "v"}),
        "BatchWriteRequest: a delete and a set, with labels (field 3, which a commit's transaction must not be read from)",
    )
    add(
        "batchWriteResponse",
        BatchWriteResponse(write_results=[WriteResult(), WriteResult(update_time=ts(1700000000, 123000))], status=[status_pb2.Status(code=5, message="Document missing"), status_pb2.Status()]),
        "BatchWriteResponse: a failed write then an applied one",
    )
    add(
        "partitionQuery",
        PartitionQueryRequest(parent=ROOT, structured_query=StructuredQuery(from_=[StructuredQuery.CollectionSelector(collection_id="c", all_descendants=True)]), partition_count=4),
        "PartitionQueryRequest over a collection group",
    )

    # ── repeated numbers: packed (what proto3 writes) and unpacked (what a parser must also read) ──
    ids = [1, 2, 300, -1]
    packed = det(TargetChange(target_change_type=TargetChange.CURRENT, target_ids=ids))
    unpacked = tag(1, 0) + varint(3) + b"".join(tag(2, 0) + varint(i) for i in ids)
    assert TargetChange.FromString(unpacked) == TargetChange.FromString(packed)
    table.append(("targetIDsPacked", packed, "TargetChange CURRENT, target_ids [1, 2, 300, -1] packed"))
    table.append(("targetIDsUnpacked", unpacked, "the same, unpacked"))
    return table


def swift_file(table):
    lines = [
        "// Generated by scripts/proto-fixtures.py from the official Python protobuf runtime "
        f"(protobuf {__import__('google.protobuf').protobuf.__version__}); do not edit.",
        "// Regenerate with `.venv/bin/python scripts/proto-fixtures.py`.",
        "",
        "/// Protobuf bytes of google.firestore.v1 messages as Google's runtime serializes them (deterministically).",
        "enum ProtoFixtures {",
    ]
    for name, data, note in table:
        lines.append(f"    /// {note}.")
        hexed = data.hex()
        chunks = [hexed[i : i + 100] for i in range(0, len(hexed), 100)] or [""]
        if len(chunks) == 1:
            lines.append(f'    static let {name} = hex("{chunks[0]}")')
        else:
            lines.append(f"    static let {name} = hex(")
            lines.append('        """')
            lines.extend(f"        {chunk}" for chunk in chunks)
            lines.append('        """)')
    lines += [
        "",
        "    /// Bytes from hex digits (whitespace ignored).",
        "    static func hex(_ text: String) -> [UInt8] {",
        "        let digits = text.utf8.filter { $0 > 32 }.map { $0 <= 57 ? $0 - 48 : $0 - 87 }",
        "        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }",
        "    }",
        "}",
        "",
    ]
    return "\n".join(lines)


def main():
    text = swift_file(fixtures())
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            print(f"{OUT} differs from what the protobuf runtime produces now; run scripts/proto-fixtures.py", file=sys.stderr)
            sys.exit(1)
        print("fixtures match the protobuf runtime")
        return
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
