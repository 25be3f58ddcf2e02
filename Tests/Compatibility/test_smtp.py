"""Outside development mode: mail goes through SMTP (a real aiosmtpd server) and its links work."""

import email
import email.policy
import re
import uuid

import requests

from conftest import ADMIN_KEY, PROJECT


def _link(message):
    parsed = email.message_from_bytes(message.content, policy=email.policy.default)
    body = parsed.get_body(preferencelist=("plain",)).get_content()
    match = re.search(r"(http://\S+/__/auth/action\?\S+)", body)
    assert match, body
    return parsed, match.group(1)


def test_verification_mail_arrives_with_a_working_link(production, smtp_sink):
    address = f"smtp-{uuid.uuid4().hex[:8]}@example.com"
    signed_up = production.sign_up(address)
    before = len(smtp_sink.messages)
    sent = production.toolkit("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": signed_up["idToken"]})
    assert sent.status_code == 200, sent.text
    assert "oobCode" not in sent.json(), "codes travel only by mail"
    message = smtp_sink.wait_for(before + 1)
    assert message.mail_from == "noreply@hearth.test"
    assert message.rcpt_tos == [address]
    parsed, link = _link(message)
    assert parsed["Subject"] == "Verify your email for CompatApp"
    assert parsed["From"] == "Hearth Compat <noreply@hearth.test>"

    page = requests.get(link, timeout=30)
    assert page.status_code == 200 and "successfully verified" in page.text
    lookup = production.toolkit("lookup", {"idToken": signed_up["idToken"]})
    assert lookup.json()["users"][0]["emailVerified"] is True
    assert requests.get(link, timeout=30).status_code == 400, "the link works once"
    assert address not in production.log(), "no address in the server's log"


def test_password_reset_by_mail_and_form(production, smtp_sink):
    address = f"reset-{uuid.uuid4().hex[:8]}@example.com"
    production.sign_up(address, "old-password")
    before = len(smtp_sink.messages)
    sent = production.toolkit("sendOobCode", {"requestType": "PASSWORD_RESET", "email": address})
    assert sent.status_code == 200, sent.text
    _, link = _link(smtp_sink.wait_for(before + 1))
    form = requests.get(link, timeout=30)
    assert form.status_code == 200 and "<form" in form.text and 'name="newPassword"' in form.text
    code = re.search(r"oobCode=([^&\s]+)", link).group(1)
    done = requests.post(production.url + "/__/auth/action",
                         data={"mode": "resetPassword", "oobCode": code, "newPassword": "new-password"}, timeout=30)
    assert done.status_code == 200 and "successfully updated" in done.text
    signed_in = production.toolkit("signInWithPassword", {"email": address, "password": "new-password"})
    assert signed_in.status_code == 200, signed_in.text


def test_admin_key_is_the_only_admin_credential(production):
    url = f"{production.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:query"
    owner = requests.post(url, json={"returnUserInfo": False}, headers={"Authorization": "Bearer owner"}, timeout=30)
    assert owner.status_code == 401
    assert owner.json()["error"]["status"] == "UNAUTHENTICATED"
    keyed = requests.post(url, json={"returnUserInfo": False}, headers={"Authorization": f"Bearer {ADMIN_KEY}"},
                          timeout=30)
    assert keyed.status_code == 200 and int(keyed.json()["recordsCount"]) >= 0
    no_key = requests.post(f"{production.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", json={}, timeout=30)
    assert no_key.status_code == 403
    custom = production.toolkit("signInWithCustomToken", {"token": '{"uid":"x"}'})
    assert custom.json()["error"]["message"].startswith("INVALID_CUSTOM_TOKEN")
