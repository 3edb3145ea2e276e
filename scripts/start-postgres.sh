#!/usr/bin/env bash
# Start a throw-away PostgreSQL server for hopkit's tests (CI and developers).
#
# Idempotent: run it again and it reuses the running server, the role and the
# database. Installs Debian's `postgresql` package with apt-get when no server
# binaries are found. The server listens on 127.0.0.1:${HOPKIT_PG_PORT:-5433}
# with its data under ${HOPKIT_PG_DIR:-/tmp/hopkit-pg}; as root it runs as the
# `postgres` user (PostgreSQL refuses to run as root).
#
# The last line printed is the SQLAlchemy URL to put in HOPKIT_TEST_POSTGRES_URL:
#   postgresql+psycopg://hopkit:hopkit@127.0.0.1:5433/hopkit_test
#
# Stop it with:  pg_ctl -D /tmp/hopkit-pg/data stop   (as the postgres user when root)
set -euo pipefail

PORT="${HOPKIT_PG_PORT:-5433}"
BASE="${HOPKIT_PG_DIR:-/tmp/hopkit-pg}"
DATA="$BASE/data"
SOCK="$BASE/sock"
LOG="$BASE/server.log"
ROLE=hopkit
PASSWORD=hopkit
DATABASE=hopkit_test

log() { echo "start-postgres: $*" >&2; }

find_bindir() {
    # Newest /usr/lib/postgresql/<version>/bin that has initdb, else initdb on PATH.
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
        echo "$dir"
        return 0
    fi
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v pg_ctl)")"
        return 0
    fi
    return 1
}

BINDIR="$(find_bindir || true)"
if [[ -z "$BINDIR" ]]; then
    log "no PostgreSQL server binaries found; installing Debian's postgresql with apt-get"
    if [[ "$(id -u)" -ne 0 ]]; then
        SUDO=sudo
    else
        SUDO=
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q >&2
    $SUDO apt-get install -y -q --no-install-recommends postgresql >&2
    BINDIR="$(find_bindir || true)"
    if [[ -z "$BINDIR" ]]; then
        log "apt-get installed postgresql but no initdb/pg_ctl was found under /usr/lib/postgresql/*/bin"
        exit 1
    fi
fi
log "using server binaries in $BINDIR"

# PostgreSQL will not run as root: use the postgres user then.
if [[ "$(id -u)" -eq 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
        useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    fi
    RUN_AS=(runuser -u postgres --)
    OWNER=postgres
else
    RUN_AS=()
    OWNER="$(id -un)"
fi
as_owner() { "${RUN_AS[@]}" "$@"; }

mkdir -p "$BASE" "$SOCK"
if [[ "$(id -u)" -eq 0 ]]; then
    chown "$OWNER" "$BASE" "$SOCK"
fi
chmod 700 "$BASE"

if [[ ! -f "$DATA/PG_VERSION" ]]; then
    log "creating a new cluster in $DATA"
    as_owner "$BINDIR/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C >&2
fi

if as_owner "$BINDIR/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    log "server already running on $DATA"
else
    log "starting the server on 127.0.0.1:$PORT (log: $LOG)"
    as_owner "$BINDIR/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $SOCK" start >&2 || {
        log "the server did not start; last lines of $LOG:"
        tail -n 20 "$LOG" >&2 || true
        exit 1
    }
fi

# Wait until it accepts TCP connections (pg_ctl -w already waits; this also
# covers a server started by an earlier run that is still recovering).
for _ in $(seq 1 60); do
    if "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
        break
    fi
    sleep 1
done
if ! "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
    log "the server on 127.0.0.1:$PORT does not accept connections; see $LOG"
    exit 1
fi

psql_admin() { as_owner "$BINDIR/psql" -h "$SOCK" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

if [[ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != "1" ]]; then
    log "creating role $ROLE"
    psql_admin -c "CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD'" >&2
else
    psql_admin -c "ALTER ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD'" >&2
fi
if [[ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" != "1" ]]; then
    log "creating database $DATABASE"
    psql_admin -c "CREATE DATABASE $DATABASE OWNER $ROLE" >&2
fi

echo "postgresql+psycopg://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DATABASE"
