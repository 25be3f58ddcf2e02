"""Scaling out (README *Scaling out*): three `hearth serve --store postgres://…` nodes behind Debian's nginx, running
docs/scale-out/nginx.conf, on one throwaway PostgreSQL cluster.

Through nginx, writes made on one node reach tree streams and `documents:listen` streams held by another; a node
killed with `kill -9` loses nothing it acknowledged, and its clients reconnect through nginx to another node and
resume; while PostgreSQL is down every node answers 503 UNAVAILABLE, and once it is back every node serves again
without a restart. The nodes run in production mode (an admin key in HEARTH_ADMIN_KEY, no --dev).
"""

import json
import threading
import time
import uuid

import pytest
import requests

from conftest import ADMIN_KEY, PROJECT, ROOT
from scale_out import NGINX_CONF, Client, EventStream, PostgresCluster, free_port, nginx_for, start_node, upstream

DOCUMENTS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
NAME_ROOT = f"projects/{PROJECT}/databases/(default)/documents"


@pytest.fixture(scope="module")
def cluster():
    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


class Deployment:
    def __init__(self, cluster, standby=None, extra=()):
        self.cluster = cluster
        # A libpq multi-host URL, as README's failover set-up has: libpq takes the first host that accepts writes.
        # Without a standby, the other host is a port that refuses connections.
        url = cluster.create_database("hearth_" + uuid.uuid4().hex[:12])
        other = f"127.0.0.1:{standby.port if standby else _closed_port()}"
        hosts = f"@127.0.0.1:{cluster.port},{other}/" if standby else f"@{other},127.0.0.1:{cluster.port}/"
        self.url = url.replace(f"@127.0.0.1:{cluster.port}/", hosts, 1) + "?target_session_attrs=read-write"
        self.nodes = []
        self.nginx = None
        for _ in range(3):
            self.nodes.append(start_node(self.url, *extra))
        self.nginx = nginx_for(self.nodes)

    def node(self, host):
        return next(node for node in self.nodes if node.host == host)

    def client_on(self, wanted, token=None):
        """A new client that nginx keeps on one of `wanted` (node hosts)."""
        for _ in range(200):
            client = Client(self.nginx.url) if token is None else Client(self.nginx.url, token=token or None)
            response = client.request("GET", "/healthz")
            assert response.status_code == 200, response.text
            if client.node in wanted:
                return client
        pytest.fail(f"nginx kept no new client on {wanted}")

    def stop(self):
        if self.nginx:
            self.nginx.stop()
        for node in self.nodes:
            node.stop()


def _closed_port():
    return free_port()


@pytest.fixture
def deployment(cluster):
    deployment = Deployment(cluster)
    yield deployment
    deployment.stop()


def write_document(client, collection, document_id, fields):
    body = {"fields": {key: {"integerValue": str(value)} for key, value in fields.items()}}
    return client.request("PATCH", f"{DOCUMENTS}/{collection}/{document_id}", json=body)


def listen(client, target):
    """Opens a documents:listen stream and adds `target` through the same client (its cookie keeps it on one node;
    a POST reaching another node would be relayed, see test_a_client_without_cookies_adds_targets_through_any_node)."""
    stream = client.stream(f"{DOCUMENTS}:listen")
    assert stream.status == 200, stream.response.text
    event, data = stream.next()
    assert event == "session", (event, data)
    session = json.loads(data)["session"]
    added = client.request("POST", f"{DOCUMENTS}:listen", params={"session": session}, json={"addTarget": target})
    assert added.status_code == 200, f"the POST reached {client.node}: {added.text}"
    return stream


def listen_until_marker(stream):
    """Messages up to and including the next consistency marker (NO_CHANGE with no targetIds)."""
    messages = []
    while True:
        item = stream.next()
        assert item is not None, f"the listen stream ended after {messages}"
        message = json.loads(item[1])
        messages.append(message)
        change = message.get("targetChange", {})
        assert change.get("targetChangeType") != "REMOVE", messages
        if change.get("targetChangeType", "NO_CHANGE") == "NO_CHANGE" and not change.get("targetIds") \
                and "targetChange" in message:
            return messages


def listen_until_changed(stream, expected):
    """Messages up to the marker after which every document of `expected` has arrived. A write made through another
    node reaches this node's hub a moment after its commit, so it may come after the first marker — even after a new
    target's CURRENT, as a change."""
    messages = []
    while not set(expected) <= set(changed_documents(messages)):
        messages += listen_until_marker(stream)
    return messages


def changed_documents(messages):
    return sorted(m["documentChange"]["document"]["name"].rsplit("/", 1)[-1] for m in messages
                  if "documentChange" in m)


def tree_event(stream):
    item = stream.next()
    assert item is not None, "the tree stream ended"
    return item[0], json.loads(item[1])


ROOMS = ["r0", "r1", "before0", "before1", "before2", "during"]


def rooms_target(resume_token=None):
    # A document target: the PostgreSQL engine does not run query targets yet (Queries are for another change).
    target = {"targetId": 1, "documents": {"documents": [f"{NAME_ROOT}/rooms/{name}" for name in ROOMS]}}
    if resume_token:
        target["resumeToken"] = resume_token
    return target


def test_readme_shows_the_tested_nginx_config():
    readme = (ROOT / "README.md").read_text()
    assert NGINX_CONF.read_text().strip() in readme, "README *Scaling out* must show docs/scale-out/nginx.conf as is"


def test_writes_on_one_node_reach_streams_on_the_others(deployment):
    nodes = [node.host for node in deployment.nodes]
    watcher = deployment.client_on(nodes)
    others = [host for host in nodes if host != watcher.node]
    writers = [deployment.client_on([host]) for host in others]
    assert {writer.node for writer in writers} | {watcher.node} == set(nodes), "each client on a node of its own"

    # An account made through one node signs in through another: accounts and signing keys are shared.
    stranger = deployment.client_on([writers[0].node], token="")
    signed_up = stranger.request("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                   params={"key": "k"}, json={"email": "ann@example.com", "password": "secret-pw-1",
                                                               "returnSecureToken": True})
    assert signed_up.status_code == 200, signed_up.text
    elsewhere = deployment.client_on([writers[1].node], token="")
    looked_up = elsewhere.request("POST", "/identitytoolkit.googleapis.com/v1/accounts:lookup", params={"key": "k"},
                                  json={"idToken": signed_up.json()["idToken"]})
    assert looked_up.status_code == 200, looked_up.text
    assert looked_up.json()["users"][0]["email"] == "ann@example.com"

    tree = watcher.stream("/chat.json")
    assert tree.status == 200 and tree.headers.get("Content-Type", "").startswith("text/event-stream")
    assert tree_event(tree) == ("put", {"path": "/", "data": None})
    documents = listen(watcher, rooms_target())
    assert changed_documents(listen_until_marker(documents)) == []
    assert tree.response.headers["X-Upstream"] == documents.response.headers["X-Upstream"] == watcher.node

    for index, writer in enumerate(writers):
        put = writer.request("PUT", f"/chat/m{index}.json", json={"from": writer.node})
        assert put.status_code == 200, put.text
        assert tree_event(tree) == ("put", {"path": f"/m{index}", "data": {"from": writer.node}})
        written = write_document(writer, "rooms", f"r{index}", {"n": index})
        assert written.status_code == 200, written.text
        assert changed_documents(listen_until_changed(documents, [f"r{index}"])) == [f"r{index}"]
    read = writers[1].request("GET", "/chat.json")
    assert read.json() == {"m0": {"from": writers[0].node}, "m1": {"from": writers[1].node}}
    tree.close()
    documents.close()


def test_a_client_without_cookies_adds_targets_through_any_node(deployment):
    """A client that keeps no cookie (every request fresh, no Session) lands on any node: its POSTs that reach a node
    other than its stream's are relayed through PostgreSQL to the stream's node, and each target's snapshot arrives."""
    auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
    opened = requests.get(deployment.nginx.url + f"{DOCUMENTS}:listen", stream=True, timeout=(10, 60),
                          headers={**auth, "Accept": "text/event-stream"})
    stream = EventStream(opened)
    assert stream.status == 200, opened.text
    stream_node = upstream(opened)
    event, data = stream.next()
    assert event == "session", (event, data)
    session = json.loads(data)["session"]
    for index in range(3):
        written = requests.patch(deployment.nginx.url + f"{DOCUMENTS}/loose/d{index}", headers=auth, timeout=30,
                                 json={"fields": {"n": {"integerValue": str(index)}}})
        assert written.status_code == 200, written.text

    answered_by = []
    target = 0
    # nginx picks a node per request for a client without its cookie; go on until some POST landed elsewhere.
    while target < 3 or (all(node == stream_node for node in answered_by) and target < 40):
        target += 1
        document = f"{NAME_ROOT}/loose/d{target % 3}"
        added = requests.post(deployment.nginx.url + f"{DOCUMENTS}:listen", params={"session": session},
                              headers=auth, timeout=30,
                              json={"addTarget": {"targetId": target, "documents": {"documents": [document]}}})
        assert added.status_code == 200 and added.json() == {}, f"{upstream(added)}: {added.text}"
        answered_by.append(upstream(added))
        # The write may reach the stream's node after the target's snapshot was read: then it comes as a change.
        messages = listen_until_changed(stream, [f"d{target % 3}"])
        kinds = [m["targetChange"].get("targetChangeType", "NO_CHANGE") for m in messages if "targetChange" in m]
        assert kinds[:2] == ["ADD", "CURRENT"], (upstream(added), messages)
        assert changed_documents(messages) == [f"d{target % 3}"], messages
    assert any(node != stream_node for node in answered_by), (stream_node, answered_by)

    # A change written through any node reaches the stream, whichever node added the targets.
    written = requests.patch(deployment.nginx.url + f"{DOCUMENTS}/loose/d0", headers=auth, timeout=30,
                             json={"fields": {"n": {"integerValue": "100"}}})
    assert written.status_code == 200, written.text
    assert "d0" in changed_documents(listen_until_changed(stream, ["d0"]))
    stream.close()


def test_each_client_behind_nginx_has_its_own_auth_allowance(cluster):
    """The auth limit per address counts the client nginx forwards for, not nginx, on every node alike.

    The clients here connect to nginx from 127.0.0.1, the very address the nodes trust as their proxy, so the
    127.0.0.1 nginx appends to X-Forwarded-For is skipped and the rightmost untrusted address is the one the client
    sent itself: the header stands in for clients on other machines. In production nginx appends the client's own,
    untrusted, address, which is what counts, and whatever the client wrote left of it is ignored. What this checks
    is that nginx.conf passes the chain on, every node takes the client from it, and the nodes share each client's
    allowance (the counters are in PostgreSQL): each client's attempts go to the three nodes in turn.
    """
    deployment = Deployment(cluster, extra=("--auth-rate-limits", "address=3/3600"))
    try:
        nodes = [node.host for node in deployment.nodes]
        clients = [deployment.client_on([host], token="") for host in nodes]

        def attempt(address, index):
            client = clients[index % len(clients)]
            response = client.request(
                "POST", "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "k"},
                json={"email": f"{uuid.uuid4().hex[:10]}@example.com", "password": "secret-pw-1"},
                headers={"X-Forwarded-For": address})
            assert response.status_code == 400, response.text
            assert client.node == nodes[index % len(nodes)], "nginx kept the client on its node"
            return response.json()["error"]["message"], client.node

        first = [attempt("203.0.113.1", index) for index in range(3)]
        assert all(message != "TOO_MANY_ATTEMPTS_TRY_LATER" for message, _ in first), first
        refused = [attempt("203.0.113.1", index) for index in range(3)]
        assert all(message == "TOO_MANY_ATTEMPTS_TRY_LATER" for message, _ in refused), refused
        # Another client is not refused because the first ran out, on any node.
        second = [attempt("203.0.113.2", index) for index in range(3)]
        assert all(message != "TOO_MANY_ATTEMPTS_TRY_LATER" for message, _ in second), second
    finally:
        deployment.stop()


def test_a_killed_node_loses_nothing_acknowledged_and_its_clients_resume_elsewhere(deployment):
    nodes = [node.host for node in deployment.nodes]
    watcher = deployment.client_on(nodes)
    victim = watcher.node
    survivor = deployment.client_on([host for host in nodes if host != victim])
    for index in range(3):
        assert write_document(survivor, "rooms", f"before{index}", {"n": index}).status_code == 200
    tree = watcher.stream("/chat.json")
    assert tree_event(tree)[0] == "put"
    documents = listen(watcher, rooms_target())
    initial = ["before0", "before1", "before2"]
    assert changed_documents(listen_until_changed(documents, initial)) == initial
    changed = write_document(survivor, "rooms", "before1", {"n": 10})
    assert changed.status_code == 200
    messages = listen_until_changed(documents, ["before1"])
    assert changed_documents(messages) == ["before1"]
    token = messages[-1]["targetChange"]["resumeToken"]

    # A writer kept on the victim, writing all along: whatever it was told succeeded must survive the kill.
    writer = deployment.client_on([victim])
    acknowledged, refused, stop = [], [], threading.Event()

    def keep_writing():
        index = 0
        while not stop.is_set():
            try:
                response = writer.request("PATCH", f"{DOCUMENTS}/log/w{index}",
                                          json={"fields": {"i": {"integerValue": str(index)}}}, timeout=30)
                (acknowledged if response.status_code == 200 else refused).append((index, response.status_code))
            except Exception as error:  # noqa: BLE001 — a connection cut mid-request is not an acknowledgement
                refused.append((index, repr(error)))
            index += 1

    thread = threading.Thread(target=keep_writing, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    before_kill = len(acknowledged)
    assert before_kill >= 20, (acknowledged, refused)

    deployment.node(victim).process.kill()  # kill -9
    deployment.node(victim).process.wait()
    assert tree.wait_for_end() and documents.wait_for_end(), "streams on a dead node end"

    # While the watcher is away, the others change the data.
    assert write_document(survivor, "rooms", "during", {"n": 1}).status_code == 200
    assert write_document(survivor, "rooms", "before2", {"n": 20}).status_code == 200
    assert survivor.request("PUT", "/chat/while-away.json", json="yes").status_code == 200

    tree = watcher.stream("/chat.json")
    assert tree.status == 200, tree.response.text
    assert watcher.node != victim and watcher.node in nodes, watcher.node
    assert tree_event(tree) == ("put", {"path": "/", "data": {"while-away": "yes"}})
    documents = listen(watcher, rooms_target(token))
    resumed = listen_until_changed(documents, ["before2", "during"])
    # Only what changed since the token: not before0 nor before1, unchanged since.
    assert changed_documents(resumed) == ["before2", "during"], resumed
    assert not any(m.get("targetChange", {}).get("targetChangeType") == "RESET" for m in resumed), resumed
    # The count the resumed target holds (4 once every change above reached this node; the changes may come later).
    assert any(3 <= m.get("filter", {}).get("count", -1) <= 4 for m in resumed), resumed

    while len(acknowledged) < before_kill + 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    thread.join(timeout=60)
    assert len(acknowledged) >= before_kill + 20, f"writes stopped succeeding after the kill: {refused[-5:]}"
    assert writer.node != victim
    reader = deployment.client_on([host for host in nodes if host != victim])
    for index, _ in acknowledged:
        read = reader.request("GET", f"{DOCUMENTS}/log/w{index}")
        assert read.status_code == 200, f"acknowledged write w{index} is lost: {read.text}"
        assert read.json()["fields"]["i"]["integerValue"] == str(index)
    # The one write the kill cut short, if any, was not acknowledged: nginx answered 502 or dropped it.
    assert all(status != 200 for _, status in refused)
    tree.close()
    documents.close()


def test_while_postgres_is_down_nodes_answer_unavailable_and_serve_again_after(deployment):
    nodes = [node.host for node in deployment.nodes]
    watcher = deployment.client_on(nodes)
    writer = deployment.client_on([host for host in nodes if host != watcher.node])
    assert write_document(writer, "rooms", "r1", {"n": 1}).status_code == 200
    tree = watcher.stream("/chat.json")
    assert tree_event(tree) == ("put", {"path": "/", "data": None})

    # pg_ctl restart -m fast, in its two halves, so that requests can be made while the server is down.
    deployment.cluster.stop_server()
    try:
        for node in deployment.nodes:
            for method, path, body in (("GET", f"{DOCUMENTS}/rooms/r1", None),
                                       ("PATCH", f"{DOCUMENTS}/rooms/r2", {"fields": {}}),
                                       ("GET", "/chat.json", None)):
                client = Client(node.url)
                response = client.request(method, path, json=body, timeout=60)
                assert response.status_code == 503, f"{node.host} {method} {path}: {response.status_code} " \
                    f"{response.text}"
                if path.startswith("/v1/"):
                    assert response.json()["error"]["status"] == "UNAVAILABLE", response.text
                else:
                    assert "error" in response.json(), response.text
            health = Client(node.url).request("GET", "/healthz", timeout=60)
            assert health.status_code == 503, f"{node.host} /healthz: {health.status_code} {health.text}"
            assert health.json()["status"] == "unavailable", health.text
        through_nginx = writer.request("GET", f"{DOCUMENTS}/rooms/r1", timeout=60)
        assert through_nginx.status_code == 503, through_nginx.text
    finally:
        deployment.cluster.start()

    # Every node serves again by itself: poll each until it answers, within a generous deadline.
    for node in deployment.nodes:
        client = Client(node.url)
        deadline = time.monotonic() + 120
        while True:
            response = client.request("GET", f"{DOCUMENTS}/rooms/r1", timeout=60)
            if response.status_code == 200 or time.monotonic() > deadline:
                break
            assert response.status_code == 503, f"{node.host}: {response.status_code} {response.text}"
            time.sleep(0.2)
        assert response.status_code == 200, f"{node.host} did not serve again: {response.text}"
        assert response.json()["fields"]["n"]["integerValue"] == "1"
        assert client.request("GET", "/healthz").json() == {"status": "ok"}
    put = writer.request("PUT", "/chat/after.json", json="back")
    assert put.status_code == 200, put.text
    # The stream opened before the outage on another node hears the write: that node's change feed reconnected.
    assert tree_event(tree) == ("put", {"path": "/after", "data": "back"})
    tree.close()


@pytest.fixture
def replicated():
    """A primary and a synchronous streaming standby (so an acknowledged commit is on both)."""
    primary = PostgresCluster()
    standby = None
    try:
        standby = PostgresCluster(primary=primary, name="standby")
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = 'standby'")
        primary.sql("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 60
        while primary.sql("SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'") != "sync":
            assert time.monotonic() < deadline, primary.sql("SELECT * FROM pg_stat_replication")
            time.sleep(0.1)
        yield primary, standby
    finally:
        if standby:
            standby.stop()
        primary.stop()


def test_a_promoted_standby_serves_every_acknowledged_write(replicated):
    primary, standby = replicated
    deployment = Deployment(primary, standby=standby)
    try:
        nodes = [node.host for node in deployment.nodes]
        watcher = deployment.client_on(nodes)
        writer = deployment.client_on([host for host in nodes if host != watcher.node])
        for index in range(20):
            assert write_document(writer, "rooms", f"r{index}", {"n": index}).status_code == 200
        assert writer.request("PUT", "/chat/before.json", json="failover").status_code == 200
        documents = listen(watcher, rooms_target())
        messages = listen_until_changed(documents, ["r0", "r1"])
        assert changed_documents(messages) == ["r0", "r1"]
        token = messages[-1]["targetChange"]["resumeToken"]
        documents.close()

        # The primary is lost (stopped as in a crash); until the standby is promoted nothing accepts writes, and the
        # nodes answer 503.
        primary.pg_ctl("-m", "immediate", "stop")
        for node in deployment.nodes:
            response = Client(node.url).request("GET", f"{DOCUMENTS}/rooms/r1", timeout=60)
            assert response.status_code == 503, f"{node.host}: {response.status_code} {response.text}"
        standby.promote()

        # The nodes' URL names both hosts: each reconnects to the promoted standby by itself.
        for node in deployment.nodes:
            client = Client(node.url)
            deadline = time.monotonic() + 120
            while True:
                response = client.request("GET", f"{DOCUMENTS}/rooms/r19", timeout=60)
                if response.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert response.status_code == 200, f"{node.host} did not serve from the promoted standby: {response.text}"
        reader = deployment.client_on(nodes)
        for index in range(20):
            read = reader.request("GET", f"{DOCUMENTS}/rooms/r{index}")
            assert read.status_code == 200 and read.json()["fields"]["n"]["integerValue"] == str(index), read.text
        assert reader.request("GET", "/chat/before.json").json() == "failover"
        written = write_document(writer, "rooms", "r1", {"n": 100})
        assert written.status_code == 200, f"the promoted standby takes writes: {written.text}"
        # The change log came over with the data: a resume token from before the failover still resumes.
        documents = listen(watcher, rooms_target(token))
        resumed = listen_until_changed(documents, ["r1"])
        assert changed_documents(resumed) == ["r1"], resumed
        documents.close()
    finally:
        deployment.stop()
