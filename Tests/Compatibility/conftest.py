"""Fixtures for the Python compatibility tests: real `hearth serve` processes and a real SMTP sink.

Each server runs on 127.0.0.1 with a free port and its own temporary data directory. The binary is
`.build/debug/hearth` unless HEARTH_BINARY names another one (`make test` builds it first).
"""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECT = "demo-hearth"
ADMIN_KEY = "compat-admin-key-" + uuid.uuid4().hex


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (for the servers a test starts itself)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, timeout=20):
    """Polls `condition` until it holds (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def hearth_binary():
    path = os.environ.get("HEARTH_BINARY") or str(ROOT / ".build" / "debug" / "hearth")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no hearth binary at {path}: run `swift build` first or set HEARTH_BINARY")
    return path


class Hearth:
    """One running `hearth serve`."""

    def __init__(self, *extra, dev=True, env=None):
        self.data = tempfile.mkdtemp(prefix="hearth-compat-")
        self.stdout = open(os.path.join(self.data, "..", os.path.basename(self.data) + ".out"), "w+")
        self.stderr_path = self.data + ".err"
        self.stderr = open(self.stderr_path, "w+")
        arguments = [hearth_binary(), "serve", "--host", "127.0.0.1", "--port", "0", "--data", self.data,
                     "--project", PROJECT, *extra]
        if dev:
            arguments.append("--dev")
        environment = {k: v for k, v in os.environ.items() if not k.startswith("HEARTH_")}
        environment.update(env or {})
        self.process = subprocess.Popen(arguments, stdout=self.stdout, stderr=self.stderr, env=environment)
        deadline = time.monotonic() + 20
        self.url = None
        while time.monotonic() < deadline:
            self.stdout.seek(0)
            line = self.stdout.readline()
            if line.startswith("listening on http://") and line.endswith("\n"):
                self.url = line[len("listening on "):].strip()
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        if not self.url:
            self.stop()
            pytest.fail(f"hearth serve did not start: {self.log()[-2000:]}")
        self.host = self.url[len("http://"):]

    def log(self):
        with open(self.stderr_path) as handle:
            return handle.read()

    def toolkit(self, verb, body, key="compat-key", headers=None):
        """POST /identitytoolkit.googleapis.com/v1/accounts:<verb>?key=…"""
        return requests.post(f"{self.url}/identitytoolkit.googleapis.com/v1/accounts:{verb}",
                             params={"key": key} if key else None, json=body, headers=headers, timeout=30)

    def sign_up(self, email, password="secret-password"):
        response = self.toolkit("signUp", {"email": email, "password": password, "returnSecureToken": True})
        assert response.status_code == 200, response.text
        return response.json()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.data, ignore_errors=True)
        for path in (self.stdout.name, self.stderr_path):
            try:
                os.remove(path)
            except OSError:
                pass


@pytest.fixture(scope="session")
def hearth():
    """A development-mode server, with FIREBASE_AUTH_EMULATOR_HOST pointing the Admin SDK at it."""
    server = Hearth()
    previous = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = server.host
    yield server
    if previous is None:
        os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
    else:
        os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = previous
    server.stop()
    assert server.process.returncode == 0, server.log()[-2000:]


@pytest.fixture(scope="session")
def admin_app(hearth):
    import firebase_admin

    # No credential: with FIREBASE_AUTH_EMULATOR_HOST set, the Admin SDK sends `Authorization: Bearer owner`.
    app = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="hearth-compat-" + uuid.uuid4().hex)
    yield app
    firebase_admin.delete_app(app)


class Sink:
    """Messages an aiosmtpd server received."""

    def __init__(self):
        self.messages = []
        self.condition = threading.Condition()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's handler name)
        with self.condition:
            self.messages.append(envelope)
            self.condition.notify_all()
        return "250 Message accepted for delivery"

    def wait_for(self, count, timeout=20):
        with self.condition:
            self.condition.wait_for(lambda: len(self.messages) >= count, timeout=timeout)
            assert len(self.messages) >= count, f"only {len(self.messages)} of {count} messages arrived"
            return self.messages[count - 1]


@pytest.fixture(scope="session")
def smtp_sink():
    from aiosmtpd.controller import Controller

    sink = Sink()
    # aiosmtpd's controller checks readiness by connecting to its own port, so it needs a concrete one.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        sink.port = probe.getsockname()[1]
    controller = Controller(sink, hostname="127.0.0.1", port=sink.port)
    controller.start()
    yield sink
    controller.stop()


@pytest.fixture(scope="session")
def production(smtp_sink):
    """A server outside development mode: SMTP mail to the sink, an admin key, no `owner`."""
    server = Hearth("--smtp-host", "127.0.0.1", "--smtp-port", str(smtp_sink.port), "--smtp-security", "none",
                    "--mail-from", "Hearth Compat <noreply@hearth.test>", "--app-name", "CompatApp",
                    dev=False, env={"HEARTH_ADMIN_KEY": ADMIN_KEY})
    yield server
    server.stop()
