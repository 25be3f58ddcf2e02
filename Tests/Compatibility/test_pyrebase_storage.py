"""pyrebase4, a community Python client of Firebase Storage's v0 REST API (from PyPI), against `hearth serve --dev`
with storage rules: `storage().child(…).put`, `download` and `get_url`, signed in with an ID token from Hearth.

pyrebase has no emulator setting: its storage URL is fixed to Google's host, so the test points the `Storage`
object's `storage_bucket` at Hearth, as people do to reach the Storage emulator. Its sign-in calls Identity Toolkit
v3 at Google's host too, so the ID token comes from Hearth's v1 `accounts:signUp` instead.
"""

import os
import tempfile
import uuid

import pyrebase
import pytest
import requests

from conftest import PROJECT, Hearth

BUCKET = f"{PROJECT}.appspot.com"

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
  }
}
"""


@pytest.fixture(scope="module")
def server():
    rules = tempfile.NamedTemporaryFile("w", suffix=".rules", delete=False)
    rules.write(RULES)
    rules.close()
    hearth = Hearth("--storage-rules", rules.name)
    yield hearth
    hearth.stop()
    os.unlink(rules.name)


def storage(server):
    firebase = pyrebase.initialize_app({
        "apiKey": "compat-key", "authDomain": "localhost", "databaseURL": server.url,
        "storageBucket": BUCKET,
    })
    files = firebase.storage()
    files.storage_bucket = f"{server.url}/v0/b/{BUCKET}"
    return files


def test_put_download_get_url(server, tmp_path):
    user = server.sign_up(f"py-{uuid.uuid4().hex[:8]}@example.com")
    uid, token = user["localId"], user["idToken"]
    path = f"users/{uid}/notes/{uuid.uuid4().hex[:8]}.txt"
    body = os.urandom(300_000)
    source = tmp_path / "source.bin"
    source.write_bytes(body)

    # put: a file path (pyrebase opens it and streams it as the body), with the ID token.
    stored = storage(server).child(path).put(str(source), token)
    assert stored["name"] == path
    assert stored["bucket"] == BUCKET
    assert stored["size"] == str(len(body))
    assert stored["downloadTokens"]

    # download with the ID token: the rules allow the owner.
    target = tmp_path / "downloaded.bin"
    storage(server).child(path).download(path, str(target), token)
    assert target.read_bytes() == body

    # get_url with the object's download token: the URL opens the file without a credential.
    url = storage(server).child(path).get_url(stored["downloadTokens"])
    assert url.startswith(f"{server.url}/v0/b/{BUCKET}/o/users%2F{uid}%2Fnotes%2F")
    assert requests.get(url, timeout=30).content == body
    # Without a token, the rules refuse a caller who is not signed in.
    plain = storage(server).child(path).get_url(None)
    assert requests.get(plain, timeout=30).status_code == 403

    # put of bytes in memory, then read back through the same URL form.
    small = f"users/{uid}/hello.txt"
    storage(server).child(small).put(b"hello from pyrebase", token)
    response = requests.get(storage(server).child(small).get_url(None),
                            headers={"Authorization": f"Firebase {token}"}, timeout=30)
    assert response.content == b"hello from pyrebase"


def test_rules_refuse_other_users_and_no_credential(server, tmp_path):
    ann = server.sign_up(f"ann-{uuid.uuid4().hex[:8]}@example.com")
    bob = server.sign_up(f"bob-{uuid.uuid4().hex[:8]}@example.com")
    path = f"users/{ann['localId']}/secret.txt"
    storage(server).child(path).put(b"ann's", ann["idToken"])

    with pytest.raises(requests.exceptions.HTTPError) as refused:
        storage(server).child(path).put(b"bob's", bob["idToken"])
    # pyrebase re-raises HTTPError with the original (carrying the response) and the body.
    assert refused.value.args[0].response.status_code == 403
    assert "PERMISSION_DENIED" in refused.value.args[1]
    with pytest.raises(requests.exceptions.HTTPError) as anonymous:
        storage(server).child(f"users/{ann['localId']}/other.txt").put(b"nobody's")
    assert anonymous.value.args[0].response.status_code == 403

    # pyrebase's download writes nothing when the answer is not 200.
    target = tmp_path / "bob.txt"
    storage(server).child(path).download(path, str(target), bob["idToken"])
    assert not target.exists()
    target_ann = tmp_path / "ann.txt"
    storage(server).child(path).download(path, str(target_ann), ann["idToken"])
    assert target_ann.read_bytes() == b"ann's"
