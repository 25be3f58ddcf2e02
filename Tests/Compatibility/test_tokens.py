"""ID tokens: verifiable by a stock JWT library with the published keys, and refused when forged."""

import glob
import os
import time
import uuid

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conftest import PROJECT


def test_pyjwt_verifies_with_the_jwks(hearth):
    signed_up = hearth.sign_up(f"jwks-{uuid.uuid4().hex[:8]}@example.com")
    token = signed_up["idToken"]
    for path in ("/.well-known/jwks.json", "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"):
        client = jwt.PyJWKClient(hearth.url + path)
        key = client.get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=PROJECT,
                            issuer=f"https://securetoken.google.com/{PROJECT}")
        assert claims["sub"] == signed_up["localId"]
        assert claims["user_id"] == signed_up["localId"]
        assert claims["firebase"]["identities"]["email"] == [signed_up["email"]]


def _signing_key(hearth):
    """The server's own private key, read from its data directory, to forge otherwise-perfect tokens."""
    path = glob.glob(os.path.join(hearth.data, "keys", "signing", "*.pem"))[0]
    with open(path, "rb") as handle:
        return serialization.load_pem_private_key(handle.read(), password=None), os.path.basename(path)[:-4]


def _lookup_error(hearth, token):
    response = hearth.toolkit("lookup", {"idToken": token})
    assert response.status_code == 400, response.text
    return response.json()["error"]["message"]


def test_forged_and_stale_tokens_are_refused(hearth):
    signed_up = hearth.sign_up(f"forged-{uuid.uuid4().hex[:8]}@example.com")
    claims = jwt.decode(signed_up["idToken"], options={"verify_signature": False})
    key, kid = _signing_key(hearth)
    now = int(time.time())

    def sign(changes, signing_key=key, key_id=kid, algorithm="RS256"):
        return jwt.encode({**claims, **changes}, signing_key, algorithm=algorithm, headers={"kid": key_id})

    assert hearth.toolkit("lookup", {"idToken": sign({})}).status_code == 200, "the forge itself is sound"
    assert _lookup_error(hearth, sign({"aud": "another-project"})) == "INVALID_ID_TOKEN"
    assert _lookup_error(hearth, sign({"iss": "https://securetoken.google.com/another-project"})) == "INVALID_ID_TOKEN"
    assert _lookup_error(hearth, sign({"iat": now - 7200, "exp": now - 3600})) == "TOKEN_EXPIRED"
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert _lookup_error(hearth, sign({}, signing_key=other)) == "INVALID_ID_TOKEN"
    assert _lookup_error(hearth, jwt.encode(claims, None, algorithm="none")) == "INVALID_ID_TOKEN"
    assert _lookup_error(hearth, sign({}, signing_key="a-shared-secret-long-enough-for-hs256!", algorithm="HS256")) == "INVALID_ID_TOKEN"
    # Issued before the account's validSince (a password change revokes every older token).
    time.sleep(1.1)
    changed = hearth.toolkit("update", {"idToken": signed_up["idToken"], "password": "another-password"})
    assert changed.status_code == 200 and changed.json()["idToken"] != signed_up["idToken"]
    assert _lookup_error(hearth, signed_up["idToken"]) == "TOKEN_EXPIRED"
    assert hearth.toolkit("lookup", {"idToken": changed.json()["idToken"]}).status_code == 200


def test_secure_token_json_and_form(hearth):
    signed_up = hearth.sign_up(f"refresh-{uuid.uuid4().hex[:8]}@example.com")
    url = f"{hearth.url}/securetoken.googleapis.com/v1/token?key=k"
    as_json = requests.post(url, json={"grantType": "refresh_token", "refreshToken": signed_up["refreshToken"]},
                            timeout=30)
    as_form = requests.post(url, data={"grant_type": "refresh_token", "refresh_token": signed_up["refreshToken"]},
                            timeout=30)
    for response in (as_json, as_form):
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["token_type"] == "Bearer" and body["expires_in"] == "3600"
        assert body["user_id"] == signed_up["localId"] and body["refresh_token"] == signed_up["refreshToken"]
        assert body["access_token"] == body["id_token"]
        assert jwt.decode(body["id_token"], options={"verify_signature": False})["sub"] == signed_up["localId"]
    bad = requests.post(url, data={"grant_type": "refresh_token", "refresh_token": "nope"}, timeout=30)
    assert bad.json()["error"]["message"] == "INVALID_REFRESH_TOKEN"
