"""The console's admin session outside dev mode, at the HTTP level: sign-in, CSRF, cross-site refusal, sign-out."""

import requests

from conftest import PROJECT, Hearth

KEY = "console-admin-key-0123456789"
DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"


def test_the_session_stands_for_the_admin_only_with_its_csrf_token_and_ends_at_sign_out():
    server = Hearth(dev=False, env={"HEARTH_ADMIN_KEY": KEY})
    try:
        assert requests.get(f"{server.url}/console/console.js", timeout=10).status_code == 401
        assert 'id="sign-in"' in requests.get(f"{server.url}/console", timeout=10).text
        browser = requests.Session()
        wrong = browser.post(f"{server.url}/console/session", json={"adminKey": "nope"}, timeout=10)
        assert wrong.status_code == 401, wrong.text
        signed = browser.post(f"{server.url}/console/session", json={"adminKey": KEY}, timeout=10)
        assert signed.status_code == 200, signed.text
        cookie = signed.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Max-Age=" in cookie
        csrf = signed.json()["csrfToken"]
        assert csrf in browser.get(f"{server.url}/console", timeout=10).text
        assert browser.get(f"{server.url}/console/console.js", timeout=10).status_code == 200
        # A forged cross-site change: the cookie without the token, or with a foreign Origin.
        forged = browser.post(f"{server.url}{DOCS}/todos", json={"fields": {}}, timeout=10,
                              headers={"Origin": "https://evil.example.net"})
        assert forged.status_code == 403, forged.text
        foreign = browser.post(f"{server.url}{DOCS}/todos", json={"fields": {}}, timeout=10,
                               headers={"X-Hearth-Console-CSRF": csrf, "Origin": "https://evil.example.net"})
        assert foreign.status_code == 403, foreign.text
        made = browser.post(f"{server.url}{DOCS}/todos", json={"fields": {}}, timeout=10,
                            headers={"X-Hearth-Console-CSRF": csrf, "Origin": server.url})
        assert made.status_code == 200, made.text
        users = browser.post(f"{server.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
                             json={"email": "a@example.com", "password": "secret-password"}, timeout=10,
                             headers={"X-Hearth-Console-CSRF": csrf})
        assert users.status_code == 200, users.text
        out = browser.delete(f"{server.url}/console/session", headers={"X-Hearth-Console-CSRF": csrf}, timeout=10)
        assert out.status_code == 200, out.text
        assert browser.get(f"{server.url}/console/console.js", timeout=10).status_code == 401
    finally:
        server.stop()
