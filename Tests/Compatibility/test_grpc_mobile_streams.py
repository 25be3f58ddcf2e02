"""The `Write` and `Listen` streams driven with grpcio as the iOS and Android SDKs drive them: the write stream's
handshake and stream tokens, a write answered with its result, and a listen resumed with its resume token after the
connection dropped, which sends only what changed instead of a full reload.
"""

import os
import queue
import subprocess
import uuid

import grpc
import pytest
import requests
from google.cloud.firestore_v1.types import common, document, firestore, query, write

from conftest import PROJECT, wait_for

DATABASE = f"projects/{PROJECT}/databases/(default)"
ROOT = DATABASE + "/documents"
WriteRequest = firestore.WriteRequest.pb()
WriteResponse = firestore.WriteResponse.pb()
ListenRequest = firestore.ListenRequest.pb()
ListenResponse = firestore.ListenResponse.pb()
Target = firestore.Target.pb()
TargetChange = firestore.TargetChange.pb()
Write = write.Write.pb()
Document = document.Document.pb()
StructuredQuery = query.StructuredQuery.pb()
METADATA = [("authorization", "Bearer owner"), ("google-cloud-resource-prefix", DATABASE)]


class Stream:
    """A bidirectional call fed from a queue, its answers read one at a time."""

    def __init__(self, channel, method, response_type):
        self.requests = queue.Queue()
        call = channel.stream_stream(
            f"/google.firestore.v1.Firestore/{method}", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_type.FromString)
        self.answers = call(iter(self.requests.get, None), metadata=METADATA, timeout=60)

    def send(self, message):
        self.requests.put(message)

    def next(self):
        return next(self.answers)

    def close(self):
        self.requests.put(None)


def test_the_write_stream_handshake_tokens_and_results(hearth):
    name = f"{ROOT}/mobile-{uuid.uuid4().hex[:8]}/one"
    with grpc.insecure_channel(hearth.host) as channel:
        stream = Stream(channel, "Write", WriteResponse)
        stream.send(WriteRequest(database=DATABASE))
        handshake = stream.next()
        assert handshake.stream_id
        assert handshake.stream_token
        assert len(handshake.write_results) == 0

        stream.send(WriteRequest(stream_token=handshake.stream_token, writes=[
            Write(update=Document(name=name, fields={"n": document.Value.pb()(integer_value=1)}))]))
        first = stream.next()
        assert len(first.write_results) == 1
        assert first.commit_time.seconds > 0
        assert first.stream_token != handshake.stream_token
        fetched = requests.get(f"{hearth.url}/v1/{name}", timeout=10)
        assert fetched.json()["fields"]["n"] == {"integerValue": "1"}, "written before it was answered"

        stream.send(WriteRequest(stream_token=first.stream_token, writes=[
            Write(update=Document(name=name, fields={"n": document.Value.pb()(integer_value=2)}),
                  current_document=common.Precondition.pb()(update_time=first.write_results[0].update_time))]))
        second = stream.next()
        assert second.write_results[0].update_time.seconds > 0

        stream.send(WriteRequest(stream_token=b"forged", writes=[Write(delete=name)]))
        with pytest.raises(grpc.RpcError) as refused:
            stream.next()
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        stream.close()
    assert requests.get(f"{hearth.url}/v1/{name}", timeout=10).status_code == 200, "the refused delete wrote nothing"


def collection_target(collection, target_id, resume_token=b""):
    selector = StructuredQuery.CollectionSelector(collection_id=collection)
    return Target(
        target_id=target_id, resume_token=resume_token,
        query=Target.QueryTarget(parent=ROOT, structured_query=StructuredQuery(from_=[selector])))


def until_current(stream):
    """Answers up to the target's CURRENT and the NO_CHANGE that carries its resume token."""
    changed, token = [], b""
    while True:
        answer = stream.next()
        kind = answer.WhichOneof("response_type")
        if kind == "document_change":
            changed.append(answer.document_change.document.name.rsplit("/", 1)[1])
        if kind == "target_change" and answer.target_change.resume_token:
            token = answer.target_change.resume_token
        if kind == "target_change" and answer.target_change.target_change_type == TargetChange.NO_CHANGE \
                and not answer.target_change.target_ids and token:
            return changed, token


def test_a_listen_resumed_after_a_dropped_connection_sends_only_what_changed(hearth):
    collection = f"rooms-{uuid.uuid4().hex[:8]}"
    for key in ["a", "b", "c"]:
        requests.patch(f"{hearth.url}/v1/{ROOT}/{collection}/{key}", json={"fields": {"n": {"integerValue": "0"}}},
                       timeout=10).raise_for_status()
    channel = grpc.insecure_channel(hearth.host)
    stream = Stream(channel, "Listen", ListenResponse)
    stream.send(ListenRequest(database=DATABASE, add_target=collection_target(collection, 7)))
    changed, token = until_current(stream)
    assert sorted(changed) == ["a", "b", "c"]
    # The connection drops (the phone loses its network); meanwhile another client changes one document.
    channel.close()
    requests.patch(f"{hearth.url}/v1/{ROOT}/{collection}/b", json={"fields": {"n": {"integerValue": "5"}}},
                   timeout=10).raise_for_status()

    with grpc.insecure_channel(hearth.host) as again:
        resumed = Stream(again, "Listen", ListenResponse)
        resumed.send(ListenRequest(database=DATABASE, add_target=collection_target(collection, 7, token)))
        changed, _ = until_current(resumed)
        assert changed == ["b"], "only the document that changed while away, not a full reload"
        resumed.close()


def listen_targets(hearth):
    metrics = requests.get(f"{hearth.url}/metrics", timeout=10).text
    line = next(line for line in metrics.splitlines() if line.startswith("hearth_listen_targets "))
    return int(float(line.split()[1]))




def test_a_cancelled_listen_frees_its_targets_at_once(hearth):
    collection = f"cancel-{uuid.uuid4().hex[:8]}"
    before = listen_targets(hearth)
    with grpc.insecure_channel(hearth.host) as channel:
        stream = Stream(channel, "Listen", ListenResponse)
        stream.send(ListenRequest(database=DATABASE, add_target=collection_target(collection, 3)))
        until_current(stream)
        assert listen_targets(hearth) == before + 1
        stream.answers.cancel()
        assert wait_for(lambda: listen_targets(hearth) == before), "the target outlived its cancelled call"
        stream.close()


def test_the_server_ends_a_listen_at_its_grpc_timeout(hearth, tmp_path):
    # curl has no gRPC deadline of its own (grpcio would cancel the call itself at its deadline): only the server's
    # reading of `grpc-timeout` can end this listen, and curl gives up only after 20 s.
    message = ListenRequest(database=DATABASE, add_target=collection_target("deadline", 4)).SerializeToString()
    body = tmp_path / "listen.bin"
    body.write_bytes(b"\0" + len(message).to_bytes(4, "big") + message)
    head = tmp_path / "head.txt"
    subprocess.run(
        ["curl", "-s", "--http2-prior-knowledge", "-H", "content-type: application/grpc", "-H", "te: trailers",
         "-H", "grpc-timeout: 1500m", "-H", "authorization: Bearer owner", "--data-binary", f"@{body}",
         f"{hearth.url}/google.firestore.v1.Firestore/Listen", "-D", str(head), "-o", os.devnull, "--max-time", "20"],
        check=False)
    # DEADLINE_EXCEEDED: nothing else ends a listen with code 4.
    assert "grpc-status: 4" in head.read_text(), head.read_text()
