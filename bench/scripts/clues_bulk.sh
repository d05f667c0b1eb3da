#!/usr/bin/env bash
# Latency of POST /api/v1/clues/bulk with 500 English answers (real grid words: the 100 best
# entries of each length 3 to 7), driven by wrk. Prints a Markdown table: one client (latency
# alone) and CONNECTIONS clients (under load).
#
#   bash bench/clues_bulk.sh      # needs indexes/en.cwi and indexes/en.cwc (indexbuild build --lang en)
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-8}"
INDEX_DIR="${CROSSWORD_INDEX_DIR:-indexes}"
for f in en.cwi en.cwc; do
  [ -f "$INDEX_DIR/$f" ] || { echo "no $INDEX_DIR/$f: build it with cargo run --release -p indexbuild -- build --lang en" >&2; exit 1; }
done

cargo build --quiet --release --bin crossword
source bench/scripts/common.sh

BIN=target/release/crossword
patron_key

# 500 answers a constructor's grid would hold: the best 100 of each length 3 to 7.
for n in 3 4 5 6 7; do "$BIN" words "$(printf '_%.0s' $(seq 1 $n))" --limit 100 --index-dir "$INDEX_DIR" --json; done |
  python3 -c 'import sys, json; words = [w["word"] for line in sys.stdin for w in json.loads(line)["words"]]; print(json.dumps({"words": words[:500], "language": "en"}))' > "$WORK/body.json"
export BULK_BODY_FILE="$WORK/body.json"

SP=$(port)
RUST_LOG="${RUST_LOG:-warn}" "$BIN" serve --listen "127.0.0.1:$SP" --data-dir "$WORK/data" --index-dir "$INDEX_DIR" --config "$WORK/config.toml" > "$WORK/server.log" 2>&1 &
SERVER=$!; PIDS+=("$SERVER")
wait_port "$SP"
wrk -t1 -c1 -d2s -s bench/scripts/clues_bulk.lua "http://127.0.0.1:$SP" > /dev/null   # load the index and clue file

ONE=$(wrk -t1 -c1 -d"${DURATION}s" --latency -s bench/scripts/clues_bulk.lua "http://127.0.0.1:$SP")
MANY=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/scripts/clues_bulk.lua "http://127.0.0.1:$SP")
curl -s -H "Authorization: Bearer $CROSSWORD_KEY" -H 'Content-Type: application/json' --data @"$WORK/body.json" "http://127.0.0.1:$SP/api/v1/clues/bulk" > "$WORK/response.json"
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")

echo "| clients | requests/s | p50 | p90 | p99 | non-2xx |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| 1 | $(rps "$ONE") | $(p "$ONE" 50) | $(p "$ONE" 90) | $(p "$ONE" 99) | $(non2xx "$ONE") |"
echo "| $CONNECTIONS | $(rps "$MANY") | $(p "$MANY" 50) | $(p "$MANY" 90) | $(p "$MANY" 99) | $(non2xx "$MANY") |"
python3 -c "import json, sys; raw = open(sys.argv[1]).read(); c = json.loads(raw)['clues']; print(f'\nOne response: {len(c)} of 500 answers with clues, {sum(map(len, c.values()))} clues, {len(raw) // 1024} KiB.')" "$WORK/response.json"
echo "Server peak memory: $((HWM / 1024)) MiB. (wrk, $(nproc) cores shared by wrk and the server, ${DURATION}s per row)"
