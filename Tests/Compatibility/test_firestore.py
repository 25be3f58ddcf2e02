"""The official Firestore client library against `hearth serve --dev`, over its REST transport.

firebase-admin's `firestore` module wraps google-cloud-firestore, whose default transport is gRPC, which Hearth does
not serve. The same library ships a REST transport for Firestore REST v1; the tests point its client at Hearth
through it. `CollectionReference.list_documents()` lists with `showMissing=true` and an empty mask.
"""

import uuid

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports.rest import FirestoreRestTransport

from conftest import ADMIN_KEY, PROJECT, Hearth


@pytest.fixture(scope="module")
def db(hearth):
    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
    transport = FirestoreRestTransport(host=hearth.host, credentials=AnonymousCredentials(), url_scheme="http")
    # The client builds its gRPC API object lazily; handing it a REST one first is the only switch it has.
    client._firestore_api_internal = FirestoreClient(transport=transport)
    yield client
    client.close()


def test_list_documents_names_missing_parents_too(db):
    users = db.collection("users-" + uuid.uuid4().hex[:10])
    users.document("a").set({"n": 1})
    users.document("b").collection("posts").document("p").set({"t": "only below b"})
    users.document("b-1").collection("posts").document("p").set({})
    users.document("c").set({"n": 3})
    users.document("d").collection("x").document("y").collection("z").document("w").set({})
    users.document("e").set({"n": 5})
    users.document("e").collection("s").document("t").set({})
    users.document("e").delete()

    expected = ["a", "b", "b-1", "c", "d", "e"]
    assert [ref.id for ref in users.list_documents()] == expected
    assert [ref.id for ref in users.list_documents(page_size=2)] == expected
    assert [ref.path for ref in users.document("b").collection("posts").list_documents(page_size=1)] == [
        f"{users.id}/b/posts/p"
    ]


def test_written_documents_read_back(db):
    items = db.collection("items-" + uuid.uuid4().hex[:10])
    items.document("x").set({"title": "first", "count": 2, "tags": ["a", "b"]})
    items.document("x").update({"count": 3})
    assert [ref.id for ref in items.list_documents()] == ["x"]
    snapshot = items.document("x").get()
    assert snapshot.exists
    assert snapshot.to_dict() == {"title": "first", "count": 3, "tags": ["a", "b"]}
    assert not items.document("nothing").get().exists


class _AdminKey(AnonymousCredentials):
    """Sends `Authorization: Bearer <admin key>`, what an operator's script holding the key would."""

    def apply(self, headers, token=None):
        headers["authorization"] = f"Bearer {ADMIN_KEY}"

    def before_request(self, request, method, url, headers):
        self.apply(headers)


def test_collections_with_the_admin_credential_outside_dev_mode():
    # :listCollectionIds is for privileged callers only outside --dev (issue 14); the library's collections() must
    # keep working with the admin credential, and an anonymous client is refused.
    server = Hearth(dev=False, env={"HEARTH_ADMIN_KEY": ADMIN_KEY})
    try:
        def client(credentials):
            db = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
            transport = FirestoreRestTransport(host=server.host, credentials=credentials, url_scheme="http")
            db._firestore_api_internal = FirestoreClient(transport=transport)
            return db

        admin = client(_AdminKey())
        root = "root-" + uuid.uuid4().hex[:10]
        admin.collection(root).document("a").collection("sub").document("s").set({"n": 1})
        assert root in [ref.id for ref in admin.collections()]
        assert [ref.id for ref in admin.collection(root).document("a").collections()] == ["sub"]
        with pytest.raises(Exception, match="403|PERMISSION_DENIED|[Pp]ermission"):
            list(client(AnonymousCredentials()).collection(root).document("a").collections())
    finally:
        server.stop()


def test_recursive_delete_removes_a_collection_and_everything_below_it(db):
    # recursive_delete runs a kindless allDescendants query bounded by `__id-9223372036854775808__` cursors and
    # deletes through BulkWriter's :batchWrite (issue 17, class 8).
    name = "tree-" + uuid.uuid4().hex[:10]
    doomed = db.collection(name)
    doomed.document("a").set({"n": 1})
    doomed.document("a").collection("sub").document("s").set({"n": 2})
    doomed.document("b").collection("deep").document("d").collection("deeper").document("e").set({"n": 3})
    doomed.document("0").set({"n": 0})
    kept = db.collection(name + "-kept")
    kept.document("k").set({"n": 4})
    db.collection(name + "x").document("k").collection(name).document("k2").set({"n": 5})

    assert db.recursive_delete(doomed) == 4
    assert list(doomed.list_documents()) == []
    assert not doomed.document("a").collection("sub").document("s").get().exists
    assert not doomed.document("b").collection("deep").document("d").collection("deeper").document("e").get().exists
    assert kept.document("k").get().exists
    assert db.collection(name + "x").document("k").collection(name).document("k2").get().exists


def test_recursive_delete_of_one_document_keeps_its_siblings(db):
    name = "tree-" + uuid.uuid4().hex[:10]
    parent = db.collection(name)
    parent.document("a").set({"n": 1})
    parent.document("a").collection("sub").document("s").set({"n": 2})
    parent.document("a-sibling").collection("sub").document("s").set({"n": 3})

    assert db.recursive_delete(parent.document("a")) == 2
    assert not parent.document("a").get().exists
    assert not parent.document("a").collection("sub").document("s").get().exists
    assert parent.document("a-sibling").collection("sub").document("s").get().exists


def test_proto_field_names_are_accepted(db):
    # Proto3 JSON parsers accept a field's `.proto` name beside its JSON name (issue 17, class 7).
    import json
    import urllib.request

    name = "proto-" + uuid.uuid4().hex[:10]
    db.collection(name).document("x").set({"n": 7})
    body = {
        "structured_query": {
            "from": [{"collection_id": name}],
            "where": {"field_filter": {"field": {"field_path": "n"}, "op": "EQUAL", "value": {"integer_value": "7"}}},
        }
    }
    host = db._firestore_api._transport._host
    if not host.startswith("http"):
        host = "http://" + host
    request = urllib.request.Request(
        f"{host}/v1/projects/{PROJECT}/databases/(default)/documents:runQuery",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer owner"},
    )
    with urllib.request.urlopen(request) as response:
        answer = json.load(response)
    assert [element["document"]["name"].rsplit("/", 1)[1] for element in answer if "document" in element] == ["x"]
