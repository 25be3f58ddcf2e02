"""Fixtures for test_scale_out.py: a throwaway PostgreSQL cluster, Hearth nodes on it, and Debian's nginx before them.

The cluster is made the way Tests/HearthPostgresTestSupport/TestCluster.swift makes one: `initdb` and `pg_ctl` from
the newest /usr/lib/postgresql/<version>/bin, on a free 127.0.0.1 port, under a temporary directory, as the system
user `hearth-pg` when running as root (PostgreSQL refuses root). nginx runs in the foreground (`daemon off;`) with the
repository's docs/scale-out/nginx.conf, its node addresses and port swapped for the test's.
"""

import os
import pathlib
import pwd
import shutil
import subprocess
import tempfile
import threading

import pytest
import requests

from conftest import ADMIN_KEY, ROOT, Hearth, free_port
from nginx_process import Nginx

NGINX_CONF = ROOT / "docs" / "scale-out" / "nginx.conf"
SERVER_USER = "hearth-pg"


def postgres_binaries():
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl, or None."""
    root = pathlib.Path("/usr/lib/postgresql")
    versions = sorted((int(p.name) for p in root.iterdir() if p.name.isdigit()), reverse=True) if root.is_dir() else []
    for version in versions:
        directory = root / str(version) / "bin"
        if all(os.access(directory / name, os.X_OK) for name in ("initdb", "pg_ctl")):
            return directory
    return None


def server_user():
    """None when not root; else the unprivileged user PostgreSQL runs as, created on first use."""
    if os.getuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(["/usr/sbin/useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", SERVER_USER], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return pwd.getpwnam(SERVER_USER)


class PostgresCluster:
    """A throwaway cluster; `stop()` deletes it."""

    def __init__(self, primary=None, name="primary"):
        """A new cluster; with `primary`, a streaming standby of it (`pg_basebackup -R`), named `name`."""
        self.binaries = postgres_binaries()
        if self.binaries is None:
            pytest.fail("PostgreSQL's server is not installed (no /usr/lib/postgresql/<version>/bin/pg_ctl): "
                        "`make test` installs Debian's postgresql package (scripts/packages.txt)")
        self.directory = tempfile.mkdtemp(prefix="hearth-scale-pg-")
        self.user = server_user()
        if self.user:
            os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        self.data = os.path.join(self.directory, "data")
        self.port = free_port()
        self.name = name
        if primary is None:
            self.run("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
        else:
            # -R writes standby.signal and primary_conninfo; initdb's pg_hba.conf trusts local replication.
            self.run("pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-D", self.data,
                     "-R", "-X", "stream")
        self.start()

    def run(self, program, *arguments):
        command = [str(self.binaries / program), *arguments]
        if self.user:
            command = ["/usr/sbin/runuser", "-u", SERVER_USER, "--", *command]
        # Output to a file, not a pipe: the server `pg_ctl start` leaves behind would hold a pipe open for ever.
        log = os.path.join(self.directory, program + ".log")
        with open(log, "a") as output:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)
        if done.returncode != 0:
            with open(log) as output:
                pytest.fail(f"{program} {' '.join(arguments)} exited with {done.returncode}: {output.read()[-2000:]}")

    def pg_ctl(self, *arguments):
        self.run("pg_ctl", "-D", self.data, "-l", os.path.join(self.directory, "server.log"), "-w", "-t", "60",
                 *arguments)

    @property
    def options(self):
        # cluster_name is the name a standby reports to its primary (synchronous_standby_names).
        return f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.directory} -F -c cluster_name={self.name}"

    def start(self):
        self.pg_ctl("-o", self.options, "start")

    def stop_server(self):
        """`pg_ctl stop -m fast`: every connection is cut, the data stays."""
        self.pg_ctl("-m", "fast", "stop")

    def sql(self, statement):
        """Runs one statement as the superuser; its output, unaligned."""
        done = subprocess.run([str(self.binaries / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                               "-d", "postgres", "-AtXc", statement], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, f"{statement}: {done.stderr}"
        return done.stdout.strip()

    def promote(self):
        """`pg_ctl promote`: a standby becomes a primary that accepts writes."""
        self.pg_ctl("promote")

    def create_database(self, name):
        """A new database; its postgres:// URL, as `hearth serve --store` takes it."""
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self.pg_ctl("-m", "fast", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)


def nginx_for(nodes):
    """nginx with docs/scale-out/nginx.conf in front of `nodes`, the file's addresses swapped for the test's."""

    def render(port, prefix):
        config = NGINX_CONF.read_text()
        # Each address must be there exactly once, or the file drifted from what the README shows.
        replacements = {f"server 127.0.0.1:{8081 + i} ": f"server {node.host} " for i, node in enumerate(nodes)}
        replacements["listen 127.0.0.1:8080;"] = f"listen 127.0.0.1:{port};"
        for old, new in replacements.items():
            assert config.count(old) == 1, f"{NGINX_CONF} no longer has `{old}` once"
            config = config.replace(old, new)
        return config

    return Nginx(render)


def start_node(url, *extra):
    """A production-mode node (an admin key, no --dev) on the PostgreSQL database at `url`, with `extra` arguments.

    Every connection reaches a node from nginx's one address, so the per-address connection limit (which counts TCP
    peers) is nginx's job; nginx (127.0.0.1) is a trusted proxy, so the auth limit per address counts the clients
    its X-Forwarded-For names.
    """
    return Hearth("--store", url, "--max-connections-per-address", "0", "--trusted-proxies", "127.0.0.1", *extra,
                  dev=False, env={"HEARTH_ADMIN_KEY": ADMIN_KEY})


def upstream(response):
    """The node nginx passed `response`'s request to: the last address of X-Upstream (earlier ones refused it)."""
    value = response.headers.get("X-Upstream", "")
    return value.split(",")[-1].strip()


class Client:
    """One client of the deployment: a cookie jar (so nginx keeps it on one node) and the admin credential."""

    def __init__(self, base, token=ADMIN_KEY):
        self.base = base
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.node = None

    def request(self, method, path, **arguments):
        arguments.setdefault("timeout", 30)
        response = self.session.request(method, self.base + path, **arguments)
        self.node = upstream(response) or self.node
        return response

    def stream(self, path, **arguments):
        response = self.session.get(self.base + path, headers={"Accept": "text/event-stream"}, stream=True,
                                    timeout=(10, 60), **arguments)
        self.node = upstream(response) or self.node
        return EventStream(response)


class EventStream:
    """Server-Sent Events read on a thread of their own: `next()` hands out (event, data) pairs as they come."""

    def __init__(self, response):
        self.response = response
        self.status = response.status_code
        self.headers = response.headers
        self.events = []
        self.ended = False
        self.condition = threading.Condition()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()
        self.taken = 0

    def read(self):
        event, data = "message", []
        try:
            for line in self.response.iter_lines(chunk_size=1024, decode_unicode=True):
                if line == "":
                    if data:
                        with self.condition:
                            self.events.append((event, "\n".join(data)))
                            self.condition.notify_all()
                    event, data = "message", []
                elif line.startswith(":"):
                    continue
                elif line.startswith("event:"):
                    event = line[len("event:"):].strip()
                elif line.startswith("data:"):
                    data.append(line[len("data:"):].strip())
        except (requests.RequestException, OSError, ValueError, AttributeError):
            pass  # the connection broke (a node died), or close() took the response away (AttributeError in http.client)
        with self.condition:
            self.ended = True
            self.condition.notify_all()

    def next(self, timeout=30):
        """The next event, or None when the stream ended first."""
        with self.condition:
            self.condition.wait_for(lambda: len(self.events) > self.taken or self.ended, timeout=timeout)
            if len(self.events) > self.taken:
                self.taken += 1
                return self.events[self.taken - 1]
            assert self.ended, f"no event within {timeout} s; so far: {self.events}"
            return None

    def wait_for_end(self, timeout=30):
        with self.condition:
            self.condition.wait_for(lambda: self.ended, timeout=timeout)
            return self.ended

    def close(self):
        self.response.close()
