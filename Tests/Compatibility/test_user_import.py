"""firebase-admin's `auth.import_users` against `hearth serve --dev`: Firebase's modified scrypt (the test vector of
Firebase's own scrypt tool), standard scrypt, PBKDF2 (SHA-256, SHA-1), bcrypt, the HMACs and the plain digests;
imported users sign in with their old password."""

import base64
import hashlib
import hmac
import uuid

from firebase_admin import auth

# Firebase's published scrypt test vector: the project parameters, one user's salt, and the hash of "user1password".
SIGNER_KEY = base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")
SALT_SEPARATOR = base64.b64decode("Bw==")
SALT = base64.b64decode("42xEC+ixf3L2lw==")
HASH = base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")


def sign_in(hearth, email, password):
    return hearth.toolkit("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})


def test_firebase_scrypt_users_sign_in_with_their_old_password(hearth, admin_app):
    uid = "imported-" + uuid.uuid4().hex[:8]
    email = f"{uid}@example.com"
    other = "imported-" + uuid.uuid4().hex[:8]
    users = [
        auth.ImportUserRecord(uid=uid, email=email, email_verified=True, display_name="Old Timer",
                              password_hash=HASH, password_salt=SALT, custom_claims={"plan": "gold"},
                              user_metadata=auth.UserMetadata(creation_timestamp=1500000000000,
                                                              last_sign_in_timestamp=1600000000000),
                              provider_data=[auth.UserProvider(uid="g-" + uid, provider_id="google.com",
                                                               email=email)]),
        # A bad row: an address already taken by the first row. It is reported, and the first row is still written.
        auth.ImportUserRecord(uid=other, email=email, password_hash=HASH, password_salt=SALT),
    ]
    algorithm = auth.UserImportHash.scrypt(key=SIGNER_KEY, rounds=8, memory_cost=14, salt_separator=SALT_SEPARATOR)
    result = auth.import_users(users, hash_alg=algorithm, app=admin_app)
    assert result.success_count == 1
    assert result.failure_count == 1
    assert result.errors[0].index == 1
    assert "EMAIL_EXISTS" in result.errors[0].reason

    record = auth.get_user(uid, app=admin_app)
    assert record.email == email
    assert record.email_verified is True
    assert record.display_name == "Old Timer"
    assert record.custom_claims == {"plan": "gold"}
    assert record.user_metadata.creation_timestamp == 1500000000000
    assert {p.provider_id for p in record.provider_data} == {"password", "google.com"}
    try:
        auth.get_user(other, app=admin_app)
        raise AssertionError("the refused row must not be written")
    except auth.UserNotFoundError:
        pass

    assert sign_in(hearth, email, "wrong password").json()["error"]["message"] == "INVALID_PASSWORD"
    first = sign_in(hearth, email, "user1password")
    assert first.status_code == 200, first.text
    assert first.json()["localId"] == uid
    # The hash was upgraded to argon2id at that sign-in; the password keeps working.
    again = sign_in(hearth, email, "user1password")
    assert again.status_code == 200, again.text


def test_standard_scrypt_and_pbkdf2_users(hearth, admin_app):
    salt = b"NaCl-" + uuid.uuid4().bytes
    scrypt_uid, pbkdf2_uid = "std-" + uuid.uuid4().hex[:8], "pbk-" + uuid.uuid4().hex[:8]
    scrypt_hash = hashlib.scrypt(b"standard pw", salt=salt, n=1024, r=8, p=1, dklen=64)
    result = auth.import_users(
        [auth.ImportUserRecord(uid=scrypt_uid, email=f"{scrypt_uid}@example.com", password_hash=scrypt_hash,
                               password_salt=salt)],
        hash_alg=auth.UserImportHash.standard_scrypt(memory_cost=1024, parallelization=1, block_size=8,
                                                     derived_key_length=64),
        app=admin_app)
    assert result.success_count == 1, [e.reason for e in result.errors]
    pbkdf2_hash = hashlib.pbkdf2_hmac("sha256", b"pbkdf2 pw", salt, 1000, 32)
    result = auth.import_users(
        [auth.ImportUserRecord(uid=pbkdf2_uid, email=f"{pbkdf2_uid}@example.com", password_hash=pbkdf2_hash,
                               password_salt=salt)],
        hash_alg=auth.UserImportHash.pbkdf2_sha256(rounds=1000), app=admin_app)
    assert result.success_count == 1, [e.reason for e in result.errors]
    assert sign_in(hearth, f"{scrypt_uid}@example.com", "standard pw").status_code == 200
    assert sign_in(hearth, f"{pbkdf2_uid}@example.com", "pbkdf2 pw").status_code == 200
    assert sign_in(hearth, f"{pbkdf2_uid}@example.com", "standard pw").status_code == 400


def test_bcrypt_users_sign_in(hearth, admin_app):
    uid = "bc-" + uuid.uuid4().hex[:8]
    # OpenBSD's bcrypt test vector: "U*U" with cost 5.
    record = auth.ImportUserRecord(uid=uid, email=f"{uid}@example.com",
                                   password_hash=b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
    result = auth.import_users([record], hash_alg=auth.UserImportHash.bcrypt(), app=admin_app)
    assert result.success_count == 1, [e.reason for e in result.errors]
    assert sign_in(hearth, f"{uid}@example.com", "U*V").status_code == 400
    assert sign_in(hearth, f"{uid}@example.com", "U*U").status_code == 200
    assert sign_in(hearth, f"{uid}@example.com", "U*U").status_code == 200


def test_hmac_digest_and_pbkdf_sha1_users(hearth, admin_app):
    """The HMACs and plain digests take the salt after the password unless the order says otherwise; a digest's
    rounds hash the previous digest again (MD5's 0 rounds count as one)."""
    key, salt = b"signer-" + uuid.uuid4().bytes, b"salt-" + uuid.uuid4().bytes

    def digest(name, password, rounds):
        value = hashlib.new(name, password + salt).digest()
        for _ in range(max(1, rounds) - 1):
            value = hashlib.new(name, value).digest()
        return value

    cases = [
        (auth.UserImportHash.hmac_sha256(key=key), hmac.new(key, b"pw-hs256" + salt, "sha256").digest(), b"pw-hs256"),
        (auth.UserImportHash.hmac_sha512(key=key), hmac.new(key, b"pw-hs512" + salt, "sha512").digest(), b"pw-hs512"),
        (auth.UserImportHash.hmac_sha1(key=key), hmac.new(key, b"pw-hs1" + salt, "sha1").digest(), b"pw-hs1"),
        (auth.UserImportHash.hmac_md5(key=key), hmac.new(key, b"pw-hmd5" + salt, "md5").digest(), b"pw-hmd5"),
        (auth.UserImportHash.sha256(rounds=3), digest("sha256", b"pw-s256", 3), b"pw-s256"),
        (auth.UserImportHash.sha512(rounds=1), digest("sha512", b"pw-s512", 1), b"pw-s512"),
        (auth.UserImportHash.sha1(rounds=2), digest("sha1", b"pw-s1", 2), b"pw-s1"),
        (auth.UserImportHash.md5(rounds=0), digest("md5", b"pw-md5", 0), b"pw-md5"),
        (auth.UserImportHash.pbkdf_sha1(rounds=500), hashlib.pbkdf2_hmac("sha1", b"pw-pbk1", salt, 500, 32),
         b"pw-pbk1"),
    ]
    for algorithm, password_hash, password in cases:
        uid = "h-" + uuid.uuid4().hex[:10]
        result = auth.import_users(
            [auth.ImportUserRecord(uid=uid, email=f"{uid}@example.com", password_hash=password_hash,
                                   password_salt=salt)], hash_alg=algorithm, app=admin_app)
        assert result.success_count == 1, (algorithm.to_dict(), [e.reason for e in result.errors])
        assert sign_in(hearth, f"{uid}@example.com", "not it").status_code == 400, algorithm.to_dict()
        first = sign_in(hearth, f"{uid}@example.com", password.decode())
        assert first.status_code == 200, (algorithm.to_dict(), first.text)
        # Upgraded to argon2id at that sign-in; the password keeps working.
        assert sign_in(hearth, f"{uid}@example.com", password.decode()).status_code == 200

    # Identity Toolkit's passwordHashOrder, as its name or its number, puts the salt first.
    for order in ["SALT_AND_PASSWORD", 1]:
        uid = "o-" + uuid.uuid4().hex[:10]
        code = hmac.new(key, salt + b"salted first", "sha256").digest()
        response = hearth.toolkit(
            "batchCreate",
            {"hashAlgorithm": "HMAC_SHA256", "signerKey": base64.b64encode(key).decode(), "passwordHashOrder": order,
             "users": [{"localId": uid, "email": f"{uid}@example.com",
                        "passwordHash": base64.urlsafe_b64encode(code).decode(),
                        "salt": base64.urlsafe_b64encode(salt).decode()}]},
            key=None, headers={"Authorization": "Bearer owner"})
        assert response.status_code == 200 and "error" not in response.json(), response.text
        assert sign_in(hearth, f"{uid}@example.com", "salted first").status_code == 200


def test_unsupported_algorithm_and_limits(hearth, admin_app):
    response = hearth.toolkit(
        "batchCreate", {"hashAlgorithm": "ARGON2", "users": [{"localId": "a2", "passwordHash": "AAAA"}]},
        key=None, headers={"Authorization": "Bearer owner"})
    assert response.status_code == 501, response.text
    assert "ARGON2 is not supported" in response.text
    response = hearth.toolkit(
        "batchCreate", {"hashAlgorithm": "HMAC_SHA256", "users": [{"localId": "h", "passwordHash": "AAAA"}]},
        key=None, headers={"Authorization": "Bearer owner"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("MISSING_SIGNER_KEY")
    response = hearth.toolkit(
        "batchCreate", {"hashAlgorithm": "SHA256", "rounds": 0, "users": [{"localId": "s", "passwordHash": "AAAA"}]},
        key=None, headers={"Authorization": "Bearer owner"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("INVALID_HASH_ROUNDS")
    response = hearth.toolkit(
        "batchCreate", {"hashAlgorithm": "SCRYPT", "signerKey": "AAAA", "rounds": 9, "memoryCost": 14,
                        "users": [{"localId": "x", "passwordHash": "AAAA"}]},
        key=None, headers={"Authorization": "Bearer owner"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("INVALID_HASH_ROUNDS")


def test_imported_provider_identity_is_found_by_provider_uid(hearth, admin_app):
    uid = "prov-" + uuid.uuid4().hex[:8]
    rawid = "gh-" + uuid.uuid4().hex[:8]
    result = auth.import_users(
        [auth.ImportUserRecord(uid=uid, provider_data=[auth.UserProvider(uid=rawid, provider_id="github.com")])],
        app=admin_app)
    assert result.success_count == 1, [e.reason for e in result.errors]
    found = auth.get_users([auth.ProviderIdentifier("github.com", rawid),
                            auth.ProviderIdentifier("github.com", "nobody")], app=admin_app)
    assert [u.uid for u in found.users] == [uid]
    assert len(found.not_found) == 1
    assert auth.get_user(uid, app=admin_app).provider_data[0].uid == rawid
