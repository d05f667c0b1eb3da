# Shared by the wrk load scripts (sourced, not run): wrk itself, a scratch folder cleaned on
# exit with the processes started, free ports, a patron key, and readers of wrk's output.

command -v wrk >/dev/null || { apt-get install -y -q wrk >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q wrk >/dev/null; }; }

WORK="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return; sleep 0.1; done; }

# A patron account without a read limit in $WORK/data; its key in CROSSWORD_KEY. Extra TOML
# (for example a [limits] table) can be passed as $1.
patron_key() {
  printf '[tiers.patron]\nreads_per_minute = -1\n%b' "${1:-}" > "$WORK/config.toml"
  local account
  account=$("$BIN" admin --data-dir "$WORK/data" account create --tier patron | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
  CROSSWORD_KEY=$("$BIN" admin --data-dir "$WORK/data" key create --account "$account" | python3 -c 'import sys, json; print(json.load(sys.stdin)["key"])')
  export CROSSWORD_KEY
}

rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
p() { awk -v q="$2%" '$1 == q {print $2}' <<<"$1"; }
non2xx() { awk '/Non-2xx/ {print $NF}' <<<"$1"; }
