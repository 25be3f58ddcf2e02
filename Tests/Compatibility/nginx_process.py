"""Debian's nginx as a child of a test: the one runner test_scale_out.py and test_grpc_tls_nginx.py share.

nginx runs in the foreground from a fresh temporary prefix (its logs, pid and temporary files all under it) on a
free port of 127.0.0.1, with the configuration the caller renders for that port and prefix. A missing nginx fails the
test: `make test` installs it (scripts/packages.txt), so its absence is a broken set-up, not a reason to skip.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from conftest import free_port

# Debian's is /usr/sbin/nginx, which a user's PATH may lack; Homebrew's is on PATH.
NGINX = "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else shutil.which("nginx")


class Nginx:
    """nginx serving `render(port, prefix)` (the configuration's text); `url` is where it listens."""

    def __init__(self, render):
        if NGINX is None:
            pytest.fail("nginx is not installed: `make test` installs Debian's nginx (scripts/packages.txt)")
        self.prefix = tempfile.mkdtemp(prefix="hearth-nginx-")
        os.chmod(self.prefix, 0o755)  # nginx's workers (not root) create their temporary files under it
        for directory in ("logs", "temp"):
            os.makedirs(os.path.join(self.prefix, directory))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = os.path.join(self.prefix, "nginx.conf")
        with open(self.config, "w") as handle:
            handle.write(render(self.port, self.prefix))
        # -e: the error log before the configuration is read (the default, /var/log/nginx, may not be writable).
        self.error_log = os.path.join(self.prefix, "logs", "error.log")
        self.output = open(os.path.join(self.prefix, "nginx.out"), "w+")
        self.process = subprocess.Popen([NGINX, "-p", self.prefix + "/", "-c", self.config, "-e", self.error_log],
                                        stdin=subprocess.DEVNULL, stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = self.log()
                self.stop()
                pytest.fail(f"nginx exited with {self.process.returncode}: {log}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        log = self.log()
        self.stop()
        pytest.fail(f"nginx did not listen on {self.port}: {log}")

    def log(self):
        """The tails of nginx's output and error log."""
        texts = []
        for path in (self.output.name, self.error_log):
            try:
                with open(path) as handle:
                    texts.append(handle.read()[-2000:])
            except OSError:
                pass
        return "\n".join(texts) or "(nginx wrote nothing)"

    def stop(self):
        """Stops nginx (TERM, then KILL after 20 s) and deletes its prefix."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.output.close()
        shutil.rmtree(self.prefix, ignore_errors=True)
