#!/usr/bin/env bash
# Load benchmark: GET /api/v1/words on the English index against a bare hyper "hello world",
# both on this machine in the same run, driven by wrk (Debian package). Prints a Markdown table.
#
#   bash bench/scripts/load.sh    # needs indexes/en.cwi (cargo run --release -p indexbuild -- build --lang en)
#   DURATION=30 CONNECTIONS=128 bash bench/scripts/load.sh
#   CROSSWORD_BIN=/tmp/crossword-before bash bench/scripts/load.sh   # another build of the server
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
INDEX_DIR="${CROSSWORD_INDEX_DIR:-indexes}"
[ -f "$INDEX_DIR/en.cwi" ] || { echo "no $INDEX_DIR/en.cwi: build it with cargo run --release -p indexbuild -- build --lang en" >&2; exit 1; }

cargo build --quiet --release --bin crossword --example hello_hyper
source bench/scripts/common.sh

BIN="${CROSSWORD_BIN:-target/release/crossword}"
patron_key '[limits]\nopen_per_minute = -1\n'

SP=$(port); HP=$(port)
RUST_LOG="${RUST_LOG:-warn}" "$BIN" serve --listen "127.0.0.1:$SP" --data-dir "$WORK/data" --index-dir "$INDEX_DIR" --config "$WORK/config.toml" > "$WORK/server.log" 2>&1 &
SERVER=$!; PIDS+=("$SERVER")
target/release/examples/hello_hyper "127.0.0.1:$HP" > /dev/null &
PIDS+=("$!")
wait_port "$SP"; wait_port "$HP"

# Warm up both (the first words request loads the English index).
wrk -t1 -c4 -d2s -s bench/scripts/words.lua "http://127.0.0.1:$SP" > /dev/null
wrk -t1 -c4 -d2s "http://127.0.0.1:$HP/" > /dev/null

run() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@"; }
# The same Lua script drives both, so the client does the same work per request.
HELLO=$(run -s bench/scripts/words.lua "http://127.0.0.1:$HP")
WORDS=$(run -s bench/scripts/words.lua "http://127.0.0.1:$SP")
RSS=$(awk '/VmRSS/ {print $2}' "/proc/$SERVER/status")
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")

echo "| server | requests/s | p50 | p99 | non-2xx |"
echo "|---|---:|---:|---:|---:|"
echo "| bare hyper hello world | $(rps "$HELLO") | $(p "$HELLO" 50) | $(p "$HELLO" 99) | $(non2xx "$HELLO") |"
echo "| crossword GET /api/v1/words (en, limit 50, 20 patterns) | $(rps "$WORDS") | $(p "$WORDS" 50) | $(p "$WORDS" 99) | $(non2xx "$WORDS") |"
python3 -c "print(f'\nThroughput ratio words / hello: {float(\"$(rps "$WORDS")\") / float(\"$(rps "$HELLO")\"):.2f}')"
echo "Server memory after the run: RSS $((RSS / 1024)) MiB, peak $((HWM / 1024)) MiB."
echo "(wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, $(nproc) cores shared by wrk and the server)"
