"""The gRPC transport: HTTP/2 with prior knowledge (h2c) on the REST port, as Google's emulator serves both.

Before it, an official gRPC client pointed at Hearth (`FIRESTORE_EMULATOR_HOST`) waited about 50 s and failed with
"Trying to connect an http1.x server". These tests hold the transport to what grpcio (the library under
google-cloud-firestore and firebase-admin) needs, with raw bytes: prompt, well-formed answers and statuses, many calls
on one connection, and REST still answered on the same port. test_grpc_firestore.py drives the official client.
"""

import grpc
import requests

from conftest import PROJECT, Hearth

GET_DOCUMENT = "/google.firestore.v1.Firestore/GetDocument"
RUN_QUERY = "/google.firestore.v1.Firestore/RunQuery"
UNKNOWN = "/google.firestore.v1.Firestore/NoSuchMethod"
NAME = f"projects/{PROJECT}/databases/(default)/documents/grpc-transport/doc".encode()
MISSING = f"projects/{PROJECT}/databases/(default)/documents/grpc-transport/missing".encode()


def get_request(name):
    """A GetDocumentRequest (field 1, name) as protobuf bytes."""
    return b"\x0a" + bytes([len(name)]) + name


REQUEST = get_request(MISSING)
# A deadline far below the old 50 s hang: a server that does not answer promptly fails with DEADLINE_EXCEEDED.
DEADLINE = 10


def identity(data):
    return data


def unary(channel, method):
    return channel.unary_unary(method, request_serializer=identity, response_deserializer=identity)


def test_an_unknown_method_is_unimplemented_at_once(hearth):
    with grpc.insecure_channel(hearth.host) as channel:
        try:
            unary(channel, UNKNOWN)(REQUEST, timeout=DEADLINE)
            raise AssertionError("the call succeeded")
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNIMPLEMENTED, error
            assert error.details() == "Method not found: google.firestore.v1.Firestore/NoSuchMethod"


def test_a_missing_document_is_not_found_and_a_bad_request_invalid(hearth):
    with grpc.insecure_channel(hearth.host) as channel:
        try:
            unary(channel, GET_DOCUMENT)(REQUEST, timeout=DEADLINE)
            raise AssertionError("the call succeeded")
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND, error
            assert "grpc-transport/missing" in error.details()
        stream = channel.unary_stream(RUN_QUERY, request_serializer=identity, response_deserializer=identity)
        try:
            list(stream(b"", timeout=DEADLINE))
            raise AssertionError("the call succeeded")
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error


def test_many_calls_share_one_connection(hearth):
    with grpc.insecure_channel(hearth.host) as channel:
        call = unary(channel, GET_DOCUMENT)
        # The name given 100 times: the last one counts, as protobuf reads a repeated singular field.
        futures = [call.future(REQUEST * 100, timeout=DEADLINE) for _ in range(300)]
        codes = [future.exception(timeout=DEADLINE).code() for future in futures]
    assert codes == [grpc.StatusCode.NOT_FOUND] * 300


def test_rest_still_answers_on_the_same_port_while_a_channel_is_open(hearth):
    document = f"{hearth.url}/v1/projects/{PROJECT}/databases/(default)/documents/grpc-transport/doc"
    with grpc.insecure_channel(hearth.host) as channel:
        call = unary(channel, GET_DOCUMENT)
        for round in range(3):
            written = requests.patch(document, json={"fields": {"round": {"integerValue": str(round)}}}, timeout=30)
            assert written.status_code == 200, written.text
            # The document REST wrote, read over gRPC: a Document message naming it.
            answer = call(get_request(NAME), timeout=DEADLINE)
            assert NAME in answer
            read = requests.get(document, timeout=30)
            assert read.status_code == 200, read.text
            assert read.json()["fields"]["round"] == {"integerValue": str(round)}


def test_a_stop_with_a_channel_open_is_clean():
    server = Hearth()
    try:
        channel = grpc.insecure_channel(server.host)
        try:
            unary(channel, GET_DOCUMENT)(REQUEST, timeout=DEADLINE)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
    finally:
        server.stop()
    # The open HTTP/2 connection was sent GOAWAY and closed; the process then exits normally.
    assert server.process.returncode == 0, server.log()[-2000:]
    channel.close()


BEGIN_TRANSACTION = "/google.firestore.v1.Firestore/BeginTransaction"


def begin_read_only():
    """A BeginTransactionRequest (1: database) with options (2) read_only (2), empty: a read-only transaction."""
    database = f"projects/{PROJECT}/databases/(default)".encode()
    return b"\x0a" + bytes([len(database)]) + database + b"\x12\x02\x12\x00"


def test_a_trusted_proxys_x_forwarded_for_metadata_names_the_caller():
    """Behind nginx's grpc_pass every call comes from nginx; with --trusted-proxies its `x-forwarded-for` metadata
    (grpc_set_header) names the caller the per-caller limits count — here the 8 read-only transactions a caller who
    is not signed in may hold at once, counted by address. Without trusted proxies the metadata is ignored."""
    for trusted in (True, False):
        server = Hearth(*(["--trusted-proxies", "127.0.0.1"] if trusted else []))
        try:
            with grpc.insecure_channel(server.host) as channel:
                begin = unary(channel, BEGIN_TRANSACTION)

                def attempt(address):
                    try:
                        begin(begin_read_only(), timeout=DEADLINE, metadata=(("x-forwarded-for", address),))
                        return grpc.StatusCode.OK
                    except grpc.RpcError as error:
                        return error.code()

                assert [attempt("203.0.113.1") for _ in range(8)] == [grpc.StatusCode.OK] * 8
                assert attempt("203.0.113.1") != grpc.StatusCode.OK, "a caller's ninth read-only transaction"
                # Another client behind the proxy has transactions of its own only when the proxy is trusted.
                expected = grpc.StatusCode.OK if trusted else grpc.StatusCode.RESOURCE_EXHAUSTED
                assert attempt("203.0.113.2") == expected
        finally:
            server.stop()
