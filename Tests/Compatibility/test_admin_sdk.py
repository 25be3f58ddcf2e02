"""The official firebase-admin Python SDK against `hearth serve --dev` through FIREBASE_AUTH_EMULATOR_HOST."""

import os
import time
import uuid

import pytest
import requests
from firebase_admin import auth

from conftest import PROJECT


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def test_create_lookup_update_delete(admin_app):
    email = unique("create")
    user = auth.create_user(email=email, password="secret-password", display_name="Ada", phone_number="+15550001000",
                            app=admin_app)
    assert user.email == email
    assert user.display_name == "Ada"
    assert user.email_verified is False
    assert user.disabled is False
    assert user.user_metadata.creation_timestamp > 0
    assert {p.provider_id for p in user.provider_data} == {"password", "phone"}

    assert auth.get_user(user.uid, app=admin_app).email == email
    assert auth.get_user_by_email(email.upper(), app=admin_app).uid == user.uid
    assert auth.get_user_by_phone_number("+15550001000", app=admin_app).uid == user.uid
    found = auth.get_users([auth.UidIdentifier(user.uid), auth.EmailIdentifier("nobody@example.com")], app=admin_app)
    assert [u.uid for u in found.users] == [user.uid]
    assert len(found.not_found) == 1

    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=email, password="secret-password", app=admin_app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=user.uid, app=admin_app)

    updated = auth.update_user(user.uid, display_name="Ada L.", email_verified=True, disabled=True, app=admin_app)
    assert (updated.display_name, updated.email_verified, updated.disabled) == ("Ada L.", True, True)
    auth.set_custom_user_claims(user.uid, {"admin": True, "level": 3}, app=admin_app)
    assert auth.get_user(user.uid, app=admin_app).custom_claims == {"admin": True, "level": 3}
    updated = auth.update_user(user.uid, display_name=auth.DELETE_ATTRIBUTE, phone_number=auth.DELETE_ATTRIBUTE,
                               app=admin_app)
    assert updated.display_name is None and updated.phone_number is None

    auth.delete_user(user.uid, app=admin_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid, app=admin_app)
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(user.uid, app=admin_app)


def test_list_users_pages_and_batch_delete(admin_app):
    uids = [f"list-{uuid.uuid4().hex[:8]}-{i}" for i in range(5)]
    for uid in uids:
        auth.create_user(uid=uid, app=admin_app)
    everyone = [u.uid for u in auth.list_users(max_results=2, app=admin_app).iterate_all()]
    assert set(uids) <= set(everyone)
    assert everyone == sorted(everyone), "pages come in uid order"
    page = auth.list_users(max_results=2, app=admin_app)
    assert len(page.users) == 2 and page.has_next_page

    result = auth.delete_users(uids, app=admin_app)
    assert result.success_count == 5 and result.failure_count == 0
    assert not ({u.uid for u in auth.list_users(app=admin_app).iterate_all()} & set(uids))


def test_verify_id_token_issued_by_hearth(hearth, admin_app):
    email = unique("verify")
    signed_up = hearth.sign_up(email)
    claims = auth.verify_id_token(signed_up["idToken"], app=admin_app)
    assert claims["uid"] == signed_up["localId"]
    assert claims["email"] == email
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}"
    assert claims["aud"] == PROJECT
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert claims["exp"] - claims["iat"] == 3600
    assert auth.verify_id_token(signed_up["idToken"], check_revoked=True, app=admin_app)["uid"] == signed_up["localId"]

    # Revocation counts in whole seconds (as Firebase's validSince does): let the token's second pass first.
    time.sleep(1.1)
    auth.revoke_refresh_tokens(signed_up["localId"], app=admin_app)
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(signed_up["idToken"], check_revoked=True, app=admin_app)
    refreshed = requests.post(f"{hearth.url}/securetoken.googleapis.com/v1/token", params={"key": "k"},
                              data={"grant_type": "refresh_token", "refresh_token": signed_up["refreshToken"]},
                              timeout=30)
    assert refreshed.status_code == 400
    assert refreshed.json()["error"]["message"] == "INVALID_REFRESH_TOKEN"


def test_custom_token_minted_by_the_admin_sdk(hearth, admin_app):
    uid = "custom-" + uuid.uuid4().hex[:8]
    token = auth.create_custom_token(uid, {"role": "editor"}, app=admin_app).decode()
    response = hearth.toolkit("signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["isNewUser"] is True
    claims = auth.verify_id_token(body["idToken"], app=admin_app)
    assert claims["uid"] == uid and claims["role"] == "editor"
    assert claims["firebase"]["sign_in_provider"] == "custom"


def test_email_action_links(hearth, admin_app):
    email = unique("links")
    user = auth.create_user(email=email, password="old-password", app=admin_app)

    link = auth.generate_email_verification_link(email, app=admin_app)
    assert link.startswith(hearth.url + "/emulator/action?mode=verifyEmail&oobCode=")
    applied = requests.get(link, timeout=30)
    assert applied.status_code == 200, applied.text
    assert auth.get_user(user.uid, app=admin_app).email_verified is True
    assert requests.get(link, timeout=30).status_code == 400, "a code works once"

    link = auth.generate_password_reset_link(email, app=admin_app)
    reset = requests.get(link + "&newPassword=brand-new-password", timeout=30)
    assert reset.status_code == 200, reset.text
    assert reset.json()["authEmulator"]["email"] == email
    old = hearth.toolkit("signInWithPassword", {"email": email, "password": "old-password"})
    assert old.json()["error"]["message"] == "INVALID_PASSWORD"
    new = hearth.toolkit("signInWithPassword", {"email": email, "password": "brand-new-password"})
    assert new.status_code == 200 and new.json()["localId"] == user.uid

    with pytest.raises(auth.UserNotFoundError):
        auth.generate_email_verification_link("nobody-" + email, app=admin_app)


def test_expired_codes_answer_expired_oob_code(hearth, admin_app):
    """Codes expire (1 h for resets, 3 days for verification); age one in the database instead of waiting."""
    import hashlib
    import sqlite3

    email = unique("expired")
    auth.create_user(email=email, password="secret-password", app=admin_app)
    link = auth.generate_password_reset_link(email, app=admin_app)
    code = link.split("oobCode=")[1].split("&")[0]
    with sqlite3.connect(os.path.join(hearth.data, "hearth.sqlite"), timeout=10) as db:
        # The database keeps only each code's SHA-256.
        aged = db.execute("UPDATE auth_oob_codes SET expires_at = ? WHERE code_hash = ?",
                          (int(time.time()) - 10, hashlib.sha256(code.encode()).digest())).rowcount
    assert aged == 1
    response = hearth.toolkit("resetPassword", {"oobCode": code, "newPassword": "another-password"})
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "EXPIRED_OOB_CODE"
    assert requests.get(link + "&newPassword=another-password", timeout=30).status_code == 400
