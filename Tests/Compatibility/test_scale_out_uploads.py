"""Resumable uploads shared by every node (README *Scaling out*): Google's own resumable-upload client
(`google-resumable-media`, what `google-cloud-storage` uploads with) sends one upload's chunks to three
`hearth serve --store postgres://…` nodes on one throwaway PostgreSQL cluster, and the first node serves the file.

The client keeps the session URL the starting node answered with; the test points it at another node between chunks,
as a load balancer without affinity would send them.
"""

import base64
import hashlib
import io
import os
import uuid

import pytest
import requests
from google.resumable_media.requests import ResumableUpload

from conftest import ADMIN_KEY, PROJECT
from scale_out import PostgresCluster, start_node

BUCKET = f"{PROJECT}.appspot.com"
CHUNK = 256 * 1024


@pytest.fixture(scope="module")
def nodes():
    cluster = PostgresCluster()
    url = cluster.create_database("hearth_" + uuid.uuid4().hex[:12])
    started = [start_node(url) for _ in range(3)]
    yield started
    for node in started:
        node.stop()
    cluster.stop()


def admin_session():
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {ADMIN_KEY}"
    return session


def move(upload, source, target):
    """Points the client's session URL, which names the node that began it, at another node."""
    assert upload.resumable_url.startswith(source.url)
    # The library keeps the URL the start answered with and offers no setter: a balancer would move it just so.
    upload._resumable_url = target.url + upload.resumable_url[len(source.url):]


def test_google_resumable_upload_continued_on_other_nodes(nodes):
    first, second, third = nodes
    transport = admin_session()
    data = os.urandom(2 * CHUNK + 12_345)
    name = f"scale-out/{uuid.uuid4().hex[:10]}.bin"
    # checksum="crc32c": the library checks the finished object's crc32c against the bytes it sent.
    upload = ResumableUpload(
        f"{first.url}/upload/storage/v1/b/{BUCKET}/o?uploadType=resumable", CHUNK, checksum="crc32c")
    upload.initiate(transport, io.BytesIO(data), {"name": name}, "application/x-trip", total_bytes=len(data))

    upload.transmit_next_chunk(transport)
    assert upload.bytes_uploaded == CHUNK
    move(upload, first, second)
    upload.transmit_next_chunk(transport)
    assert upload.bytes_uploaded == 2 * CHUNK

    # A third node asked where the session stands (the client's recovery after a failure) knows it.
    move(upload, second, third)
    upload.recover(transport)
    assert upload.bytes_uploaded == 2 * CHUNK
    response = upload.transmit_next_chunk(transport)
    assert upload.finished
    stored = response.json()
    assert stored["size"] == str(len(data))
    assert stored["contentType"] == "application/x-trip"
    assert stored["md5Hash"] == base64.b64encode(hashlib.md5(data).digest()).decode()

    download = transport.get(f"{first.url}/download/storage/v1/b/{BUCKET}/o/{requests.utils.quote(name, safe='')}",
                             params={"alt": "media"}, timeout=30)
    assert download.status_code == 200, download.text
    assert download.content == data

    # The finished session takes nothing more, on the node that began it either.
    late = transport.put(upload.resumable_url.replace(third.url, first.url, 1), data=b"x",
                         headers={"Content-Range": f"bytes {len(data)}-{len(data)}/{len(data) + 1}"}, timeout=30)
    assert late.status_code == 404, late.text
