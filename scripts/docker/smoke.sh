#!/usr/bin/env bash
# The image's check (the Dockerfile's last step, and scripts/docker/check.sh's): start the
# installed `kanon serve` on a free loopback port, ask /health, analyze and anonymize a text as a
# Presidio client does, and stop it (SIGTERM: in-flight requests finish).
#
#   scripts/docker/smoke.sh PREFIX
set -euo pipefail
prefix="$(cd "${1:?usage: scripts/docker/smoke.sh PREFIX}" && pwd)"
export KANON_CACHE="$prefix/models"
port="${KANON_SMOKE_PORT:-$((20000 + RANDOM % 20000))}"
log="$(mktemp)"
"$prefix/bin/kanon" serve --config "$prefix/serve.toml" --address "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT

ask() { # METHOD PATH [BODY]
    python3 - "$port" "$@" <<'PY'
import json, sys, urllib.request
port, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method,
                                 headers={"Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=60) as answer:
    print(answer.read().decode())
PY
}
for _ in $(seq 1 120); do
    if ask GET /health >/dev/null 2>&1; then break; fi
    if ! kill -0 "$server" 2>/dev/null; then cat "$log"; echo "kanon serve exited" >&2; exit 1; fi
    sleep 1
done
text='Ada Lovelace was born in London in 1815 and worked with Charles Babbage.'
analysis="$(ask POST /analyze "{\"text\": \"$text\", \"language\": \"en\"}")"
echo "analyze: $analysis"
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert isinstance(r, list) and r, "nothing found"' "$analysis"
anonymized="$(ask POST /anonymize "{\"text\": \"$text\", \"analyzer_results\": $analysis}")"
echo "anonymize: $anonymized"
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert "Ada Lovelace" not in r["text"], r' "$anonymized"
kill -TERM "$server"
wait "$server" || true
echo "smoke test passed"
