#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL cluster: `scripts/with-postgres.sh COMMAND [ARGUMENTS...]`.
#
# The cluster (initdb + pg_ctl from Debian's postgresql package) lives in a new temporary directory, listens on a
# free port on 127.0.0.1 only, trusts local connections as `postgres`, and is stopped and deleted when the command
# ends, however it ends (failure, Ctrl-C, a timeout's SIGTERM). The command sees it as
# HEARTH_TEST_POSTGRES=postgres://postgres@127.0.0.1:PORT, which makes every server the Swift end-to-end harness
# starts run on a fresh database of its own there (Sources/HearthTesting/PostgresTestStore.swift). The command's
# exit status is the script's.
#
# PostgreSQL refuses to run as root, so as root (CI) the server runs as the system user `hearth-pg` (created when
# missing), like the Swift tests' own clusters (Tests/HearthPostgresTestSupport).
set -euo pipefail

[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND [ARGUMENTS...]" >&2; exit 2; }

# Debian keeps initdb and pg_ctl off PATH, under /usr/lib/postgresql/<version>/bin: take the newest.
bin=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bin=$candidate; break; fi
done
[ -n "$bin" ] || { echo "$0: PostgreSQL's server is not installed (Debian package postgresql)" >&2; exit 1; }
command -v psql >/dev/null || { echo "$0: psql is not installed (Debian package postgresql-client)" >&2; exit 1; }

as_server=()
if [ "$(id -u)" = 0 ]; then
    id hearth-pg >/dev/null 2>&1 ||
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin hearth-pg 2>/dev/null ||
        id hearth-pg >/dev/null # another run may have created it meanwhile
    as_server=(runuser -u hearth-pg --)
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/hearth-pg-e2e-XXXXXX")
[ "${#as_server[@]}" = 0 ] || chown hearth-pg: "$dir"
chmod 700 "$dir"

stop_cluster() {
    if [ -f "$dir/data/postmaster.pid" ]; then
        "${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}
trap stop_cluster EXIT
# A signal ends the script through its EXIT trap (exit status 128 + the signal).
trap 'exit 130' INT
trap 'exit 143' TERM

# -A trust over 127.0.0.1 is safe here: the server listens nowhere else, and lives only as long as the command.
"${as_server[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }

# A port is free when nothing listens on it; another program may take it between the probe and pg_ctl, so a failed
# start tries another port.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
started=""
for _ in 1 2 3 4 5; do
    port=$(free_port)
    # -F: no fsync, a throwaway cluster needs no durability. Each `hearth serve` on PostgreSQL holds a writer, its
    # readers and its feed connections, and tests run side by side: far more than the default 100 connections.
    if "${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
        -o "-p $port -c listen_addresses=127.0.0.1 -c max_connections=3000 -k $dir -F" start >/dev/null 2>&1; then
        started=yes
        break
    fi
done
[ -n "$started" ] || { echo "$0: the cluster did not start:" >&2; tail -n 40 "$dir/log" >&2; exit 1; }

export HEARTH_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port"
echo "+ PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port ($dir), HEARTH_TEST_POSTGRES=$HEARTH_TEST_POSTGRES"
# Not `exec`: the EXIT trap must run after the command.
status=0
"$@" || status=$?
exit "$status"
