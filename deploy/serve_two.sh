#!/usr/bin/env bash
# Serve the app from two Streamlit processes behind nginx, on this machine.
#
#     deploy/serve_two.sh            # http://127.0.0.1:8080
#     PORT=9000 BACKEND_PORTS="9001 9002" deploy/serve_two.sh
#
# Starts `streamlit run streamlit_app.py` twice (127.0.0.1, ports
# BACKEND_PORTS, default 8501 and 8502) with one shared cookie secret, opens
# every page once in each (deploy/warm_up.py), then nginx in the foreground
# with deploy/nginx.conf (ports rewritten), its pid file, logs and temporary files in a temporary directory. Ctrl-C (or any of
# the three exiting) stops all of them. Needs nginx (Debian: apt-get install nginx).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
PORT="${PORT:-8080}"
read -r -a BACKENDS <<<"${BACKEND_PORTS:-8501 8502}"
if [ "${#BACKENDS[@]}" -ne 2 ]; then
    echo "BACKEND_PORTS must name two ports" >&2
    exit 2
fi
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
STREAMLIT="${STREAMLIT:-streamlit}"
# One secret for both processes (signed cookies must be readable by either).
export STREAMLIT_SERVER_COOKIE_SECRET="${STREAMLIT_SERVER_COOKIE_SECRET:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}"

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/serve-two.XXXXXX")"
chmod 755 "$RUN_DIR"  # nginx workers may run as another user
PIDS=()
cleanup() {
    trap - EXIT INT TERM
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "stopped; logs were in $RUN_DIR (removed)" >&2
    rm -rf "$RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for port in "${BACKENDS[@]}"; do
    (cd "$ROOT" && exec "$STREAMLIT" run streamlit_app.py --server.headless true \
        --server.address 127.0.0.1 --server.port "$port") >"$RUN_DIR/streamlit-$port.log" 2>&1 &
    PIDS+=("$!")
done
for port in "${BACKENDS[@]}"; do
    for _ in $(seq 300); do
        if curl -fs "http://127.0.0.1:$port/_stcore/health" >/dev/null 2>&1; then break; fi
        for pid in "${PIDS[@]}"; do
            kill -0 "$pid" 2>/dev/null || { cat "$RUN_DIR"/streamlit-*.log >&2; exit 1; }
        done
        sleep 0.2
    done
done

# A first page run in a new process costs about a second (imports, catalogs,
# chart specs): pay it now, not with the first learners.
PYTHON="${PYTHON:-python3}"
"$PYTHON" "$HERE/warm_up.py" "${BACKENDS[@]/#/http://127.0.0.1:}" || echo "warm-up failed; serving anyway" >&2

sed -e "s/127\.0\.0\.1:8080/127.0.0.1:$PORT/;t" \
    -e "s/127\.0\.0\.1:8501/127.0.0.1:${BACKENDS[0]}/;t" \
    -e "s/127\.0\.0\.1:8502/127.0.0.1:${BACKENDS[1]}/" \
    "$HERE/nginx.conf" >"$RUN_DIR/nginx.conf"
"$NGINX" -p "$RUN_DIR" -c "$RUN_DIR/nginx.conf" -e stderr -g 'daemon off;' &
PIDS+=("$!")

echo "serving http://127.0.0.1:$PORT (Streamlit on ${BACKENDS[*]}; logs in $RUN_DIR); Ctrl-C stops" >&2
wait -n "${PIDS[@]}"  # returns as soon as one of them exits; the trap stops the rest
