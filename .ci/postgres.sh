#!/usr/bin/env bash
# A PostgreSQL server of our own for the classroom tests (Debian's postgresql
# package; this script installs nothing). Run as root or as postgres.
#   .ci/postgres.sh start DIR PORT   initialise DIR if empty, start, print the URL
#                                    (DIR: a directory the postgres user can reach, e.g.
#                                    from mktemp -d; it is chowned to postgres)
#   .ci/postgres.sh stop DIR         stop the server (fast shutdown)
# The server listens on 127.0.0.1 only and trusts local connections: a test
# server, never a real one.
set -euo pipefail
action=${1:?start or stop}
dir=${2:?data directory}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [[ -z "$bin" || ! -x "$bin/pg_ctl" ]]; then
    echo "no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
    exit 2
fi
as_postgres() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$action" in
start)
    port=${3:?port}
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    if [[ ! -f "$dir/PG_VERSION" ]]; then
        as_postgres "$bin/initdb" -D "$dir" -A trust -U postgres -E UTF8 --locale=C.UTF-8 > /dev/null
    fi
    as_postgres "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start > /dev/null
    echo "postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
    ;;
stop)
    as_postgres "$bin/pg_ctl" -D "$dir" -m fast -w stop > /dev/null
    ;;
*)
    echo "unknown action $action" >&2
    exit 2
    ;;
esac
