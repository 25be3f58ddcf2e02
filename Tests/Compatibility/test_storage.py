"""Google's `google-cloud-storage` client against `hearth serve --dev` through STORAGE_EMULATOR_HOST, and a plain
REST client of Firebase Storage's v0 API on the same files."""

import os
import uuid

import pytest
import requests
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from conftest import PROJECT

BUCKET = f"{PROJECT}.appspot.com"


@pytest.fixture(scope="module")
def client(hearth):
    previous = os.environ.get("STORAGE_EMULATOR_HOST")
    os.environ["STORAGE_EMULATOR_HOST"] = hearth.url
    yield storage.Client(project=PROJECT, credentials=AnonymousCredentials())
    if previous is None:
        os.environ.pop("STORAGE_EMULATOR_HOST", None)
    else:
        os.environ["STORAGE_EMULATOR_HOST"] = previous


def name(prefix):
    return f"{prefix}/{uuid.uuid4().hex[:10]}"


def test_upload_download_metadata_delete(client):
    bucket = client.bucket(BUCKET)
    blob = bucket.blob(name("gcs") + ".txt")
    blob.upload_from_string(b"hello from python", content_type="text/plain")
    assert blob.size == 17
    assert blob.content_type == "text/plain"
    assert blob.md5_hash and blob.crc32c and blob.generation

    fetched = bucket.get_blob(blob.name)
    assert fetched.size == 17
    assert fetched.md5_hash == blob.md5_hash
    # The library checks the bytes against X-Goog-Hash.
    assert fetched.download_as_bytes() == b"hello from python"
    assert fetched.download_as_bytes(start=6, end=9) == b"from"

    fetched.metadata = {"owner": "ann"}
    fetched.cache_control = "no-cache"
    fetched.patch()
    again = bucket.get_blob(blob.name)
    assert again.metadata["owner"] == "ann"
    assert again.cache_control == "no-cache"
    assert again.metageneration == 2

    again.delete()
    assert bucket.get_blob(blob.name) is None
    with pytest.raises(exceptions.NotFound):
        again.download_as_bytes()


def test_resumable_upload_in_chunks(client):
    bucket = client.bucket(BUCKET)
    data = os.urandom(700_000)
    blob = bucket.blob(name("chunks") + ".bin", chunk_size=256 * 1024)
    blob.upload_from_string(data, content_type="application/octet-stream")
    assert blob.size == len(data)
    assert bucket.blob(blob.name).download_as_bytes() == data


def test_list_copy_rewrite(client, hearth):
    bucket = client.bucket(BUCKET)
    root = name("listing")
    for leaf in ["a.txt", "b.txt", "sub/c.txt"]:
        bucket.blob(f"{root}/{leaf}").upload_from_string(leaf.encode())
    names = [b.name for b in client.list_blobs(BUCKET, prefix=root + "/")]
    assert names == [f"{root}/a.txt", f"{root}/b.txt", f"{root}/sub/c.txt"]
    pages = client.list_blobs(BUCKET, prefix=root + "/", delimiter="/")
    top = [b.name for b in pages]
    assert top == [f"{root}/a.txt", f"{root}/b.txt"]
    assert pages.prefixes == {f"{root}/sub/"}
    paged = list(client.list_blobs(BUCKET, prefix=root + "/", max_results=10, page_size=1))
    assert len(paged) == 3

    source = bucket.blob(f"{root}/a.txt")
    copied = bucket.copy_blob(source, bucket, f"{root}/copy.txt")
    assert copied.download_as_bytes() == b"a.txt"
    rewritten = bucket.blob(f"{root}/rewritten.txt")
    token, done, total = rewritten.rewrite(source)
    assert token is None and done == total == 5
    assert rewritten.download_as_bytes() == b"a.txt"

    # The same object through Firebase's v0 REST API, as any HTTP client sees it.
    v0 = requests.get(f"{hearth.url}/v0/b/{BUCKET}/o/" + requests.utils.quote(f"{root}/copy.txt", safe=""))
    assert v0.status_code == 200
    assert v0.json()["size"] == "5"
    media = requests.get(v0.url, params={"alt": "media", "token": v0.json()["downloadTokens"]})
    assert media.content == b"a.txt"
