#!/usr/bin/env bash
# Soak and overload of both services (release builds): starts `crossword serve` on the English
# index and `covers serve`, each with a fresh data folder, then runs bench/soak/soak.py's mixed
# traffic for SOAK_SECONDS (default 600) and prints its Markdown report; the figures go to
# bench/results/soak.json. Fails when any error other than the designed 429s was seen.
#
#   bash bench/soak/run.sh                   # needs indexes/en.cwi
#   SOAK_SECONDS=60 bash bench/soak/run.sh   # a short run
#   SOAK_WORDS=flat bash bench/soak/run.sh   # word searches flat out instead of paced
#   SOAK_TRAFFIC=fills,exports bash ...      # only some of the other traffic (see soak.py)
set -euo pipefail
cd "$(dirname "$0")/../.."

INDEX_DIR="${CROSSWORD_INDEX_DIR:-indexes}"
[ -f "$INDEX_DIR/en.cwi" ] || { echo "no $INDEX_DIR/en.cwi: build it with cargo run --release -p indexbuild -- build --lang en" >&2; exit 1; }
cargo build --quiet --release --bin crossword --bin covers
source bench/scripts/common.sh

BIN=target/release/crossword
# Two fills at a time in all (the pool is full whenever both fill clients run), two per account.
# (patron_key's TOML ends inside [tiers.patron].)
patron_key 'fills_per_month = -1\npuzzles_per_month = -1\n[limits]\nsolver_threads = 2\nopen_per_minute = -1\n'
FIRST_KEY="$CROSSWORD_KEY"
account=$("$BIN" admin --data-dir "$WORK/data" account create --tier patron | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
SECOND_KEY=$("$BIN" admin --data-dir "$WORK/data" key create --account "$account" | python3 -c 'import sys, json; print(json.load(sys.stdin)["key"])')

printf '[plans.patron]\ndesigns = -1\ndaily_composes = -1\ndaily_exports = -1\n[exports]\nworkers = 1\n' > "$WORK/covers.toml"
CB=target/release/covers
caccount=$("$CB" admin --data-dir "$WORK/covers" account create --plan patron | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
COVERS_KEY=$("$CB" admin --data-dir "$WORK/covers" key create --account "$caccount" | python3 -c 'import sys, json; print(json.load(sys.stdin)["key"])')

SP=$(port); CP=$(port)
RUST_LOG=warn "$BIN" serve --listen "127.0.0.1:$SP" --data-dir "$WORK/data" --index-dir "$INDEX_DIR" --config "$WORK/config.toml" > "$WORK/crossword.log" 2>&1 &
CROSSWORD_PID=$!; PIDS+=("$CROSSWORD_PID")
RUST_LOG=warn "$CB" serve --listen "127.0.0.1:$CP" --data-dir "$WORK/covers" --config "$WORK/covers.toml" > "$WORK/covers.log" 2>&1 &
COVERS_PID=$!; PIDS+=("$COVERS_PID")
wait_port "$SP"; wait_port "$CP"

# Word searches: wrk for the whole run (its latencies are exact). SOAK_WORDS=paced (the default):
# 8 connections, each pausing 1 ms between requests, a steady high rate; SOAK_WORDS=flat: 2
# connections as fast as the box allows, which saturates both cores by itself.
export CROSSWORD_KEY="$FIRST_KEY"
if [ "${SOAK_WORDS:-paced}" = flat ]; then
  WORDS_LABEL="GET /words (wrk, 2 connections, flat out)"; WORDS_ARGS=(-c2 -s bench/scripts/words.lua)
else
  WORDS_LABEL="GET /words (wrk, 8 connections, 1 ms pauses)"; WORDS_ARGS=(-c8 -s bench/soak/paced_words.lua)
fi
wrk -t1 "${WORDS_ARGS[@]}" -d"${SOAK_SECONDS:-600}s" --latency "http://127.0.0.1:$SP" > "$WORK/words.txt" 2>&1 &
PIDS+=("$!")

status=0
WORDS_WRK="$WORK/words.txt" WORDS_LABEL="$WORDS_LABEL" CROSSWORD_ADDR="127.0.0.1:$SP" COVERS_ADDR="127.0.0.1:$CP" CROSSWORD_KEYS="$FIRST_KEY,$SECOND_KEY" \
  COVERS_KEY="$COVERS_KEY" CROSSWORD_DATABASE="$WORK/data/crossword.redb" COVERS_DATABASE="$WORK/covers/covers.redb" \
  CROSSWORD_PID="$CROSSWORD_PID" COVERS_PID="$COVERS_PID" \
  python3 bench/soak/soak.py || status=$?
echo
echo "wrk (GET /api/v1/words):"; sed -n '/Latency Distribution/,/Requests\/sec/p' "$WORK/words.txt"
exit "$status"
