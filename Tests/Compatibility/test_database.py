"""The official firebase-admin `db` module against `hearth serve --dev` through FIREBASE_DATABASE_EMULATOR_HOST.

The SDK then talks REST to Hearth with `?ns=<project>-default-rtdb` and `Authorization: Bearer owner`; plain REST
clients that send no `ns` must see the same data.
"""

import os
import queue
import threading
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import db, exceptions

from conftest import PROJECT, Hearth


@pytest.fixture(scope="module")
def tree_server():
    """A server of its own, with keep-alives every second so listeners notice closed connections quickly."""
    server = Hearth(env={"HEARTH_TREE_KEEPALIVE_SECONDS": "1"})
    yield server
    server.stop()
    assert server.process.returncode == 0, server.log()[-2000:]


@pytest.fixture(scope="module")
def db_app(tree_server):
    previous = os.environ.get("FIREBASE_DATABASE_EMULATOR_HOST")
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = tree_server.host
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": f"https://{PROJECT}-default-rtdb.firebaseio.com"},
        name="hearth-tree-" + uuid.uuid4().hex)
    yield app
    firebase_admin.delete_app(app)
    if previous is None:
        os.environ.pop("FIREBASE_DATABASE_EMULATOR_HOST", None)
    else:
        os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = previous


def fresh(db_app, label):
    """A reference to a new, empty location."""
    return db.reference(f"/{label}-{uuid.uuid4().hex[:10]}", app=db_app)


def test_set_get_push_update_delete(db_app, tree_server):
    ref = fresh(db_app, "crud")
    ref.set({"name": "Ada", "age": 36, "langs": ["en", "fr"], "admin": True, "score": 1.5})
    assert ref.get() == {"name": "Ada", "age": 36, "langs": ["en", "fr"], "admin": True, "score": 1.5}
    assert ref.child("name").get() == "Ada"

    pushed = ref.child("messages").push({"text": "hello"})
    assert len(pushed.key) == 20
    second = ref.child("messages").push("world")
    assert second.key > pushed.key
    assert ref.child("messages").get() == {pushed.key: {"text": "hello"}, second.key: "world"}

    ref.update({"age": 37, "address/city": "London", "admin": None})
    value = ref.get()
    assert value["age"] == 37 and value["address"] == {"city": "London"} and "admin" not in value

    assert ref.get(shallow=True) == {"name": True, "age": True, "langs": True, "score": True, "messages": True,
                                     "address": True}

    ref.child("messages").delete()
    assert ref.child("messages").get() is None
    ref.delete()
    assert ref.get() is None

    # A plain REST client that sends no `ns` sees the SDK's data: both name the default database.
    ref.set({"shared": 1})
    plain = requests.get(f"{tree_server.url}{ref.path}.json", timeout=10)
    assert plain.status_code == 200 and plain.json() == {"shared": 1}


def test_server_values_and_etags(db_app):
    ref = fresh(db_app, "etag")
    ref.set({"n": 1, "at": {".sv": "timestamp"}})
    assert isinstance(ref.child("at").get(), int)
    value, etag = ref.child("n").get(etag=True)
    assert value == 1 and etag
    changed, new_value, new_etag = ref.child("n").get_if_changed(etag)
    assert changed is False
    ok, _, after = ref.child("n").set_if_unchanged(etag, 2)
    assert ok and after != etag
    stale_ok, current, current_etag = ref.child("n").set_if_unchanged(etag, 3)
    assert stale_ok is False and current == 2 and current_etag == after
    changed, new_value, new_etag = ref.child("n").get_if_changed(etag)
    assert changed is True and new_value == 2 and new_etag == after


def dinosaurs(db_app):
    ref = fresh(db_app, "dinos")
    ref.set({
        "bruhathkayosaurus": {"height": 25, "order": "saurischia", "stats": {"weight": 99}},
        "lambeosaurus": {"height": 2.1, "order": "ornithischia", "stats": {"weight": 3}},
        "linhenykus": {"height": 0.6, "order": "theropoda", "stats": {"weight": 1}},
        "pterodactyl": {"height": 0.6, "order": "pterosauria", "stats": {"weight": 2}},
        "stegosaurus": {"height": 4, "order": "ornithischia", "stats": {"weight": 50}},
        "triceratops": {"height": 3, "order": "ornithischia", "stats": {"weight": 40}},
    })
    return ref


def test_order_by_child_with_limits_and_ranges(db_app):
    ref = dinosaurs(db_app)
    ordered = ref.order_by_child("height").get()
    assert list(ordered) == ["linhenykus", "pterodactyl", "lambeosaurus", "triceratops", "stegosaurus",
                             "bruhathkayosaurus"]
    assert list(ref.order_by_child("height").limit_to_first(2).get()) == ["linhenykus", "pterodactyl"]
    assert list(ref.order_by_child("height").limit_to_last(2).get()) == ["stegosaurus", "bruhathkayosaurus"]
    assert list(ref.order_by_child("height").start_at(3).get()) == ["triceratops", "stegosaurus", "bruhathkayosaurus"]
    assert list(ref.order_by_child("height").start_at(1).end_at(4).get()) == ["lambeosaurus", "triceratops",
                                                                               "stegosaurus"]
    assert list(ref.order_by_child("order").equal_to("ornithischia").get()) == ["lambeosaurus", "stegosaurus",
                                                                                 "triceratops"]
    assert list(ref.order_by_child("stats/weight").limit_to_last(1).get()) == ["bruhathkayosaurus"]


def test_order_by_key_and_value(db_app):
    ref = dinosaurs(db_app)
    keys = ref.order_by_key().start_at("p").end_at("t").get()
    assert list(keys) == ["pterodactyl", "stegosaurus"]
    assert list(ref.order_by_key().limit_to_last(1).get()) == ["triceratops"]
    scores = fresh(db_app, "scores")
    scores.set({"ada": 80, "bob": 95, "cy": 62, "di": 95, "ed": "n/a", "fi": True})
    assert list(scores.order_by_value().get()) == ["fi", "cy", "ada", "bob", "di", "ed"]
    assert scores.order_by_value().start_at(80).end_at(95).limit_to_first(2).get() == {"ada": 80, "bob": 95}
    assert list(scores.order_by_value().equal_to(95).get()) == ["bob", "di"]
    numbered = fresh(db_app, "numbered")
    numbered.set({"10": "ten", "9": "nine", "a": "letter", "100": "hundred"})
    # Integer-like keys come first, numerically, then the others: the server's window shows it (the SDK re-sorts
    # what it receives as plain strings).
    assert set(numbered.order_by_key().limit_to_first(2).get()) == {"9", "10"}
    assert set(numbered.order_by_key().limit_to_last(2).get()) == {"100", "a"}


def test_transaction_under_contention_loses_no_increment(db_app):
    ref = fresh(db_app, "counter")
    threads_count, per_thread = 4, 8
    errors = []

    def worker():
        try:
            for _ in range(per_thread):
                ref.transaction(lambda current: (current or 0) + 1)
        except Exception as error:  # noqa: BLE001 (surface any failure in the main thread)
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert ref.get() == threads_count * per_thread


def test_transaction_on_an_object(db_app):
    ref = fresh(db_app, "txobj")
    ref.set({"likes": 1, "title": "x"})
    result = ref.transaction(lambda value: {**value, "likes": value["likes"] + 1})
    assert result == {"likes": 2, "title": "x"}
    assert ref.get() == {"likes": 2, "title": "x"}


# Closing a registration closes the response under the SDK's reader thread, which then fails inside urllib3
# ('NoneType' object has no attribute 'read'); that is the SDK's own shutdown path, not a server error.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_listen_receives_put_and_patch(db_app):
    ref = fresh(db_app, "listen")
    ref.set({"a": 1})
    events = queue.Queue()
    registration = ref.listen(lambda event: events.put((event.event_type, event.path, event.data)))
    try:
        assert events.get(timeout=20) == ("put", "/", {"a": 1})
        ref.child("b").set({"c": True})
        assert events.get(timeout=20) == ("put", "/b", {"c": True})
        ref.update({"a": 2, "d/e": "x"})
        assert events.get(timeout=20) == ("patch", "/", {"a": 2, "d/e": "x"})
        ref.child("b").delete()
        assert events.get(timeout=20) == ("put", "/b", None)
    finally:
        registration.close()


RULES = """{
  "rules": {
    "users": {
      "$uid": {
        ".read": "auth != null && auth.uid === $uid",
        ".write": "auth != null && auth.uid === $uid",
        "count": { ".validate": "newData.isNumber()" }
      }
    }
  }
}"""


@pytest.fixture(scope="module")
def rules_server(tmp_path_factory):
    """A server enforcing an ownership rules file on the tree."""
    path = tmp_path_factory.mktemp("tree-rules") / "database.rules.json"
    path.write_text(RULES)
    server = Hearth("--database-rules", str(path))
    yield server
    server.stop()
    assert server.process.returncode == 0, server.log()[-2000:]


def app_as(server, override, label):
    """An Admin SDK app judged by the rules as `override` (`databaseAuthVariableOverride`)."""
    previous = os.environ.get("FIREBASE_DATABASE_EMULATOR_HOST")
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = server.host
    options = {"projectId": PROJECT, "databaseURL": f"https://{PROJECT}-default-rtdb.firebaseio.com",
               "databaseAuthVariableOverride": override}
    app = firebase_admin.initialize_app(options=options, name=f"hearth-{label}-" + uuid.uuid4().hex)
    db.reference("/", app=app)  # the client (and its emulator host) is fixed on first use
    if previous is None:
        os.environ.pop("FIREBASE_DATABASE_EMULATOR_HOST", None)
    else:
        os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = previous
    return app


def test_rules_judge_the_admin_sdk_acting_as_a_user(rules_server):
    alice = app_as(rules_server, {"uid": "alice"}, "alice")
    nobody = app_as(rules_server, None, "nobody")
    try:
        own = db.reference("/users/alice", app=alice)
        own.set({"name": "Alice", "count": 0})
        assert own.get() == {"name": "Alice", "count": 0}
        pushed = own.child("posts").push({"text": "hi"})
        own.update({"name": "Alice L.", f"posts/{pushed.key}/text": "hello"})
        assert own.child("count").transaction(lambda current: (current or 0) + 1) == 1
        assert own.get() == {"name": "Alice L.", "count": 1, "posts": {pushed.key: {"text": "hello"}}}

        theirs = db.reference("/users/bob", app=alice)
        for attempt in (lambda: theirs.get(), lambda: theirs.set({"name": "forged"}),
                        lambda: theirs.child("posts").push({"text": "spam"}),
                        lambda: db.reference("/", app=alice).update({"users/alice/name": "A", "users/bob/name": "B"}),
                        lambda: own.update({"count": "not a number"}),
                        lambda: db.reference("/users/alice", app=nobody).get(),
                        lambda: theirs.delete()):
            with pytest.raises(exceptions.UnauthenticatedError, match="Permission denied"):
                attempt()
        # Nothing refused was applied (read back through plain REST as the administrator).
        everything = requests.get(f"{rules_server.url}/.json", headers={"Authorization": "Bearer owner"}, timeout=10)
        assert everything.json() == {"users": {"alice": {"name": "Alice L.", "count": 1,
                                                         "posts": {pushed.key: {"text": "hello"}}}}}
    finally:
        firebase_admin.delete_app(alice)
        firebase_admin.delete_app(nobody)
