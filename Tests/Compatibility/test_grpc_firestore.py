"""Google's own Firestore client (google-cloud-firestore, what firebase-admin's `firestore` wraps) over gRPC, unchanged:
pointed at `hearth serve` with FIRESTORE_EMULATOR_HOST, the way every Firebase developer points it at the emulator.
HTTP/2 with prior knowledge on the REST port; the same documents, rules and listeners as REST.
"""

import os
import threading
import time
import uuid

import grpc
import pytest
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore
from google.cloud.firestore_v1 import FieldFilter, Or
from google.cloud.firestore_v1.base_query import And
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports.grpc import FirestoreGrpcTransport

from conftest import PROJECT, Hearth, wait_for



def emulator_client(host, project=PROJECT):
    """A client exactly as an app makes one against the emulator: only the environment variable differs."""
    previous = os.environ.get("FIRESTORE_EMULATOR_HOST")
    os.environ["FIRESTORE_EMULATOR_HOST"] = host
    try:
        return firestore.Client(project=project)
    finally:
        if previous is None:
            del os.environ["FIRESTORE_EMULATOR_HOST"]
        else:
            os.environ["FIRESTORE_EMULATOR_HOST"] = previous


@pytest.fixture(scope="module")
def db(hearth):
    client = emulator_client(hearth.host)
    yield client
    client.close()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_set_get_update_delete_merge_and_transforms(db):
    ref = db.collection(unique("grpc")).document("a")
    ref.set({"title": "first", "count": 2, "tags": ["x"], "nested": {"k": 1}})
    assert ref.get().to_dict() == {"title": "first", "count": 2, "tags": ["x"], "nested": {"k": 1}}
    ref.set({"nested": {"j": 2}}, merge=True)
    assert ref.get().to_dict()["nested"] == {"k": 1, "j": 2}
    ref.update({
        "count": firestore.Increment(5),
        "tags": firestore.ArrayUnion(["y", "x"]),
        "at": firestore.SERVER_TIMESTAMP,
        "title": firestore.DELETE_FIELD,
    })
    data = ref.get().to_dict()
    assert data["count"] == 7
    assert data["tags"] == ["x", "y"]
    assert "title" not in data
    assert abs(data["at"].timestamp() - time.time()) < 60
    ref.update({"tags": firestore.ArrayRemove(["x"])})
    assert ref.get().to_dict()["tags"] == ["y"]
    with pytest.raises(exceptions.NotFound):
        ref.parent.document("missing").update({"n": 1})
    ref.delete()
    assert not ref.get().exists


def test_create_refuses_an_existing_document(db):
    ref = db.collection(unique("grpc")).document("once")
    ref.create({"n": 1})
    with pytest.raises(exceptions.Conflict):
        ref.create({"n": 2})
    assert ref.get().to_dict() == {"n": 1}


def test_batches_apply_all_or_nothing(db):
    items = db.collection(unique("batch"))
    items.document("keep").set({"n": 0})
    batch = db.batch()
    batch.set(items.document("a"), {"n": 1})
    batch.update(items.document("keep"), {"n": 1})
    batch.commit()
    assert items.document("a").get().exists
    failing = db.batch()
    failing.set(items.document("b"), {"n": 2})
    failing.update(items.document("missing"), {"n": 1})
    with pytest.raises(exceptions.NotFound):
        failing.commit()
    assert not items.document("b").get().exists


def test_transactions_under_contention_lose_no_increment(hearth):
    counter_path = (unique("tx"), "counter")
    setup = emulator_client(hearth.host)
    setup.collection(counter_path[0]).document(counter_path[1]).set({"n": 0})
    rounds, clients = 5, 8
    errors = []

    def worker():
        client = emulator_client(hearth.host)
        ref = client.collection(counter_path[0]).document(counter_path[1])

        @firestore.transactional
        def bump(transaction):
            snapshot = ref.get(transaction=transaction)
            transaction.update(ref, {"n": snapshot.get("n") + 1})

        try:
            for _ in range(rounds):
                bump(client.transaction(max_attempts=50))
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)
        finally:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert setup.collection(counter_path[0]).document(counter_path[1]).get().get("n") == rounds * clients
    setup.close()


def test_every_query_shape(db):
    cities = db.collection(unique("cities"))
    rows = {
        "sf": {"name": "San Francisco", "state": "CA", "pop": 860, "regions": ["west", "coast"]},
        "la": {"name": "Los Angeles", "state": "CA", "pop": 3900, "regions": ["west", "socal"]},
        "dc": {"name": "Washington", "state": None, "pop": 680, "regions": ["east"]},
        "tk": {"name": "Tokyo", "state": None, "pop": 9000, "regions": ["asia"]},
        "bj": {"name": "Beijing", "state": None, "pop": 21500, "regions": ["asia"]},
    }
    for key, value in rows.items():
        cities.document(key).set(value)

    def ids(query):
        return [snapshot.id for snapshot in query.get()]

    assert ids(cities.where(filter=FieldFilter("state", "==", "CA")).order_by("pop")) == ["sf", "la"]
    assert ids(cities.where(filter=FieldFilter("pop", ">", 1000)).order_by("pop")) == ["la", "tk", "bj"]
    assert ids(cities.where(filter=FieldFilter("state", "in", ["CA"])).order_by("pop")) == ["sf", "la"]
    assert sorted(ids(cities.where(filter=FieldFilter("pop", "not-in", [860, 680])))) == ["bj", "la", "tk"]
    assert sorted(ids(cities.where(filter=FieldFilter("regions", "array_contains", "west")))) == ["la", "sf"]
    assert sorted(ids(cities.where(filter=FieldFilter("regions", "array_contains_any", ["east", "socal"])))) == [
        "dc", "la"]
    either = Or([FieldFilter("pop", "<", 700), FieldFilter("name", "==", "Tokyo")])
    assert sorted(ids(cities.where(filter=either))) == ["dc", "tk"]
    both = And([FieldFilter("state", "==", "CA"), FieldFilter("pop", ">", 1000)])
    assert ids(cities.where(filter=both)) == ["la"]
    def ordered():
        # A fresh query each time: the library's limit_to_last() flips the orders of the query it is called on.
        return cities.order_by("pop")

    assert ids(ordered().limit(2)) == ["dc", "sf"]
    assert ids(ordered().limit_to_last(2)) == ["tk", "bj"]
    assert ids(ordered().start_after({"pop": 860}).limit(2)) == ["la", "tk"]
    assert ids(ordered().start_at(cities.document("la").get()).end_before({"pop": 21500})) == ["la", "tk"]
    assert ids(ordered().end_at({"pop": 860})) == ["dc", "sf"]

    group = unique("landmarks")
    cities.document("sf").collection(group).document("bridge").set({"type": "bridge"})
    cities.document("tk").collection(group).document("tower").set({"type": "tower"})
    assert sorted(snapshot.id for snapshot in db.collection_group(group).stream()) == ["bridge", "tower"]

    counts = cities.where(filter=FieldFilter("state", "==", "CA")).count(alias="n").get()
    assert counts[0][0].value == 2
    total = cities.sum("pop", alias="total").get()
    assert total[0][0].value == 860 + 3900 + 680 + 9000 + 21500
    average = cities.where(filter=FieldFilter("state", "==", "CA")).avg("pop", alias="mean").get()
    assert average[0][0].value == pytest.approx((860 + 3900) / 2)


def test_list_collections_and_documents(db):
    root = unique("root")
    db.collection(root).document("a").set({"n": 1})
    db.collection(root).document("b").collection("sub").document("s").set({})
    assert root in [ref.id for ref in db.collections()]
    assert [ref.id for ref in db.collection(root).document("b").collections()] == ["sub"]
    assert [ref.id for ref in db.collection(root).list_documents()] == ["a", "b"]
    assert [ref.id for ref in db.collection(root).list_documents(page_size=1)] == ["a", "b"]


def test_bulk_writer_and_recursive_delete(db):
    name = unique("bulk")
    writer = db.bulk_writer()
    for index in range(30):
        writer.set(db.collection(name).document(f"d{index:02}"), {"i": index})
    writer.close()
    assert len(list(db.collection(name).stream())) == 30
    assert db.recursive_delete(db.collection(name)) == 30
    assert list(db.collection(name).stream()) == []




def test_on_snapshot_of_a_document_and_a_query_sees_changes_live(db):
    rooms = db.collection(unique("rooms"))
    rooms.document("r1").set({"open": True, "n": 1})
    document_snapshots = []
    query_changes = []
    document_watch = rooms.document("r1").on_snapshot(lambda snapshots, changes, read_time: document_snapshots.extend(
        snapshot.to_dict() for snapshot in snapshots))
    query_watch = rooms.where(filter=FieldFilter("open", "==", True)).on_snapshot(
        lambda snapshots, changes, read_time: query_changes.extend((change.type.name, change.document.id)
                                                                 for change in changes))
    try:
        assert wait_for(lambda: document_snapshots and ("ADDED", "r1") in query_changes), (
            document_snapshots, query_changes)
        rooms.document("r2").set({"open": True, "n": 2})
        rooms.document("r1").update({"n": 5})
        rooms.document("r2").update({"open": False})
        assert wait_for(lambda: ("REMOVED", "r2") in query_changes), query_changes
        assert ("ADDED", "r2") in query_changes
        assert ("MODIFIED", "r1") in query_changes
        assert wait_for(lambda: {"open": True, "n": 5} in document_snapshots), document_snapshots
    finally:
        document_watch.unsubscribe()
        query_watch.unsubscribe()


RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /notes/{uid}/items/{item} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
  }
}
"""


class _Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
              grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds `authorization: Bearer <ID token>` to every call, as the mobile SDKs send a signed-in user's token."""

    def __init__(self, token):
        self.token = token

    def _details(self, details):
        metadata = [(k, v) for k, v in (details.metadata or []) if k != "authorization"]
        metadata.append(("authorization", f"Bearer {self.token}"))
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation, details, requests):
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation, details, requests):
        return continuation(self._details(details), requests)


def signed_in_client(server, token):
    channel = grpc.intercept_channel(grpc.insecure_channel(server.host), _Bearer(token))
    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
    client._firestore_api_internal = FirestoreClient(transport=FirestoreGrpcTransport(channel=channel))
    return client


def test_rules_judge_an_id_token_caller(tmp_path):
    rules = tmp_path / "firestore.rules"
    rules.write_text(RULES)
    server = Hearth("--rules", str(rules), dev=False)
    try:
        alice = server.sign_up(unique("alice") + "@example.com")
        bob = server.sign_up(unique("bob") + "@example.com")
        as_alice = signed_in_client(server, alice["idToken"])
        as_bob = signed_in_client(server, bob["idToken"])
        mine = as_alice.collection("notes").document(alice["localId"]).collection("items")
        mine.document("n1").set({"text": "hello"})
        assert mine.document("n1").get().to_dict() == {"text": "hello"}
        assert [s.id for s in mine.stream()] == ["n1"]
        theirs = as_bob.collection("notes").document(alice["localId"]).collection("items")
        with pytest.raises(exceptions.PermissionDenied):
            theirs.document("n1").get()
        with pytest.raises(exceptions.PermissionDenied):
            theirs.document("n2").set({"text": "intruder"})
        with pytest.raises(exceptions.PermissionDenied):
            list(theirs.stream())
        as_alice.close()
        as_bob.close()
    finally:
        server.stop()


def test_a_bad_request_gets_a_status_not_a_hang(db, hearth):
    channel = grpc.insecure_channel(hearth.host)
    call = channel.unary_unary("/google.firestore.v1.Firestore/GetDocument",
                               request_serializer=lambda b: b, response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as failure:
        call(b"\x0a\x03abc", timeout=10, metadata=[("authorization", "Bearer owner")])
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    unknown = channel.unary_unary("/google.firestore.v1.Firestore/Nope",
                                  request_serializer=lambda b: b, response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as missing:
        unknown(b"", timeout=10)
    assert missing.value.code() == grpc.StatusCode.UNIMPLEMENTED
    channel.close()


def test_firebase_admin_firestore_client(hearth):
    """firebase-admin's `firestore.client()`, as a backend calls it: before the gRPC service it waited 50 s and
    failed with "Trying to connect an http1.x server"."""
    import firebase_admin
    from firebase_admin import credentials
    from firebase_admin import firestore as admin_firestore

    class NoCredential(credentials.Base):
        """What a backend's service-account credential is to the emulator: never checked (the client sends
        `Bearer owner` to an emulator host); a test has no service account to load."""

        def get_credential(self):
            return AnonymousCredentials()

    previous = os.environ.get("FIRESTORE_EMULATOR_HOST")
    os.environ["FIRESTORE_EMULATOR_HOST"] = hearth.host
    app = firebase_admin.initialize_app(NoCredential(), options={"projectId": PROJECT}, name=unique("admin-grpc"))
    try:
        client = admin_firestore.client(app)
        ref = client.collection(unique("admin")).document("d")
        ref.set({"by": "firebase-admin", "n": firestore.Increment(2)})
        assert ref.get().to_dict() == {"by": "firebase-admin", "n": 2}
        assert [s.id for s in ref.parent.where(filter=FieldFilter("n", "==", 2)).get()] == ["d"]
        client.close()
    finally:
        firebase_admin.delete_app(app)
        if previous is None:
            del os.environ["FIRESTORE_EMULATOR_HOST"]
        else:
            os.environ["FIRESTORE_EMULATOR_HOST"] = previous
