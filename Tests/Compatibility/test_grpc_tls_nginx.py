"""Production TLS for the gRPC API: Debian's nginx terminates TLS and HTTP/2 and passes the calls to `hearth serve`
with `grpc_pass`, as docs/grpc.md (*TLS*) sets it up — what a phone on the internet reaches.

A throwaway CA and a certificate for localhost / 127.0.0.1 (both in the subjectAltName) are made with the `openssl`
command; nginx runs unprivileged-safe from a temporary prefix, in the foreground, as a child of the test. Google's
own client (google-cloud-firestore) then talks to nginx over a TLS channel that trusts only that CA: writes, reads,
a query and a live on_snapshot. A channel trusting another CA, or expecting another host name, is refused, so the
test fails if TLS were not verified or the certificate did not name the host.
"""

import os
import shutil
import subprocess
import tempfile
import threading
import uuid

import grpc
import pytest
import requests
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore
from google.cloud.firestore_v1 import FieldFilter
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports.grpc import FirestoreGrpcTransport

from conftest import PROJECT, wait_for
from nginx_process import Nginx

# The server block docs/grpc.md shows, with the test's paths and ports filled in. nginx 1.22 (Debian 12) takes
# `listen … ssl http2;` (`http2 on;` came in 1.25.1). `master_process off` keeps nginx one process that never
# changes user, so it runs the same as root (CI) and as anyone else; everything it writes stays under the prefix
# (nginx_process.Nginx makes its logs/ and temp/).
CONFIG = """
daemon off;
master_process off;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/logs/access.log;
    client_body_temp_path {prefix}/temp/client_body;
    proxy_temp_path {prefix}/temp/proxy;
    fastcgi_temp_path {prefix}/temp/fastcgi;
    uwsgi_temp_path {prefix}/temp/uwsgi;
    scgi_temp_path {prefix}/temp/scgi;

    # Two pools to the one port: nginx keeps idle upstream connections per pool, and an h2c connection kept for gRPC
    # must never be handed to an HTTP/1.1 request (or the other way round).
    upstream hearth_grpc {{
        server 127.0.0.1:{hearth_port};
        keepalive 16;
    }}
    upstream hearth_http {{
        server 127.0.0.1:{hearth_port};
        keepalive 16;
    }}

    server {{
        listen 127.0.0.1:{port} ssl http2;
        server_name localhost;
        ssl_certificate {certificates}/server.pem;
        ssl_certificate_key {certificates}/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;

        # A Write stream is one request body for as long as the app runs: no size cap, and a quiet Listen or
        # Write stream must not be timed out by nginx.
        client_max_body_size 0;
        client_body_timeout 1h;

        # The Firestore gRPC methods (exactly /google.firestore.v1.Firestore/<Method>) go over h2c to Hearth's port.
        location ~ ^/google\.firestore\.v1\.Firestore/[A-Za-z]+$ {{
            grpc_pass grpc://hearth_grpc;
            grpc_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            grpc_read_timeout 1h;
            grpc_send_timeout 1h;
            grpc_socket_keepalive on;
        }}

        # Everything else (REST, SSE listeners, Auth, Storage, the console) over HTTP/1.1, unbuffered for streams.
        location / {{
            proxy_pass http://hearth_http;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto https;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


def openssl(*arguments, cwd):
    result = subprocess.run(["openssl", *arguments], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"openssl {' '.join(arguments)}: {result.stderr}"


def make_ca(directory, name):
    """A self-signed CA (RSA 2048, SHA-256): `{name}.pem` and `{name}.key`."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-sha256", "-days", "2", "-nodes", "-keyout", f"{name}.key",
            "-out", f"{name}.pem", "-subj", f"/CN=Hearth test {name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=directory)


def make_server_certificate(directory):
    """`server.pem` signed by `ca`, for localhost and 127.0.0.1 — in the subjectAltName, where clients look."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=localhost", cwd=directory)
    with open(os.path.join(directory, "server.ext"), "w") as handle:
        handle.write("subjectAltName = DNS:localhost, IP:127.0.0.1\n"
                     "extendedKeyUsage = serverAuth\n"
                     "basicConstraints = critical, CA:FALSE\n"
                     "keyUsage = critical, digitalSignature, keyEncipherment\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-sha256", "-days", "2", "-extfile", "server.ext", "-out", "server.pem", cwd=directory)


@pytest.fixture(scope="module")
def certificates():
    directory = tempfile.mkdtemp(prefix="hearth-nginx-")
    make_ca(directory, "ca")
    make_ca(directory, "other-ca")
    make_server_certificate(directory)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def nginx(hearth, certificates):
    hearth_port = int(hearth.host.rsplit(":", 1)[1])
    proxy = Nginx(lambda port, prefix: CONFIG.format(prefix=prefix, port=port, hearth_port=hearth_port,
                                                     certificates=certificates))
    yield proxy
    proxy.stop()


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def tls_channel(port, ca_path, host="localhost"):
    """A TLS channel trusting only `ca_path`, sending `authorization: Bearer owner` (development mode's owner) as
    call credentials — which gRPC sends over TLS channels only."""
    credentials = grpc.composite_channel_credentials(
        grpc.ssl_channel_credentials(root_certificates=read(ca_path)), grpc.access_token_call_credentials("owner"))
    return grpc.secure_channel(f"{host}:{port}", credentials)


def tls_client(channel):
    """google-cloud-firestore on a given channel, as an app wires it to a real server instead of the emulator."""
    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
    client._firestore_api_internal = FirestoreClient(transport=FirestoreGrpcTransport(channel=channel))
    return client


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_the_official_client_through_nginx_with_tls(nginx, certificates, hearth):
    channel = tls_channel(nginx.port, os.path.join(certificates, "ca.pem"))
    db = tls_client(channel)
    try:
        items = db.collection(unique("tls"))
        items.document("a").set({"n": 1, "tag": "x"})
        items.document("b").set({"n": 2, "tag": "y"})
        assert items.document("a").get().to_dict() == {"n": 1, "tag": "x"}
        assert [s.id for s in items.where(filter=FieldFilter("n", ">=", 2)).stream()] == ["b"]

        # What the client wrote through the proxy is the server's document: REST on the server's own port sees it,
        # and so does REST through the same proxy, over HTTPS on the same port (HTTP/1.1, `location /`).
        path = f"/v1/projects/{PROJECT}/databases/(default)/documents/{items.id}/a"
        rest = requests.get(hearth.url + path, timeout=30)
        assert rest.status_code == 200, rest.text
        assert rest.json()["fields"]["n"] == {"integerValue": "1"}
        proxied = requests.get(f"https://localhost:{nginx.port}{path}", verify=os.path.join(certificates, "ca.pem"),
                               timeout=30)
        assert proxied.status_code == 200, proxied.text
        assert proxied.json()["fields"] == rest.json()["fields"]

        # A Listen stream through nginx sees a change made while it is open.
        seen = []
        changed = threading.Event()

        def on_snapshot(snapshots, changes, read_time):
            for change in changes:
                seen.append((change.type.name, change.document.id, change.document.to_dict()))
                if change.document.id == "c":
                    changed.set()

        watch = items.where(filter=FieldFilter("tag", "in", ["x", "z"])).on_snapshot(on_snapshot)
        try:
            assert wait_for(lambda: ("ADDED", "a", {"n": 1, "tag": "x"}) in seen), seen
            items.document("c").set({"n": 3, "tag": "z"})
            assert changed.wait(20), seen
            assert ("ADDED", "c", {"n": 3, "tag": "z"}) in seen
        finally:
            watch.unsubscribe()

        with pytest.raises(exceptions.NotFound):
            items.document("missing").update({"n": 1})
    finally:
        db.close()


def test_a_channel_trusting_another_ca_is_refused(nginx, certificates):
    channel = tls_channel(nginx.port, os.path.join(certificates, "other-ca.pem"))
    db = tls_client(channel)
    try:
        with pytest.raises(exceptions.ServiceUnavailable):
            db.collection("tls").document("a").get(timeout=10, retry=None)
    finally:
        db.close()


def test_the_certificate_must_name_the_host(nginx, certificates):
    # Trusted CA, but the client expects another name than the subjectAltName's localhost / 127.0.0.1.
    credentials = grpc.composite_channel_credentials(
        grpc.ssl_channel_credentials(root_certificates=read(os.path.join(certificates, "ca.pem"))),
        grpc.access_token_call_credentials("owner"))
    channel = grpc.secure_channel(f"127.0.0.1:{nginx.port}", credentials,
                                  options=[("grpc.ssl_target_name_override", "hearth.example.com")])
    db = tls_client(channel)
    try:
        with pytest.raises(exceptions.ServiceUnavailable):
            db.collection("tls").document("a").get(timeout=10, retry=None)
    finally:
        db.close()
    # The same certificate verifies for 127.0.0.1 itself (its IP entry).
    by_address = tls_client(tls_channel(nginx.port, os.path.join(certificates, "ca.pem"), host="127.0.0.1"))
    try:
        assert not by_address.collection(unique("tls")).document("none").get(timeout=10).exists
    finally:
        by_address.close()


def test_plaintext_is_not_served_on_the_tls_port(nginx):
    # A client that forgot TLS gets no answer from the proxy, never a silent plaintext fallback.
    channel = grpc.insecure_channel(f"127.0.0.1:{nginx.port}")
    call = channel.unary_unary("/google.firestore.v1.Firestore/GetDocument",
                               request_serializer=lambda b: b, response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as failure:
        call(b"", timeout=10, metadata=[("authorization", "Bearer owner")])
    assert failure.value.code() == grpc.StatusCode.UNAVAILABLE
    channel.close()
