#!/usr/bin/env bash
# Cover service under load (release build, wrk from Debian):
#   1. uploads per second: POST /api/v1/uploads of a 4 MB JPEG (multipart; noise, so it stays
#      about 4 MB), each one sniffed, decoded, written again without metadata and previewed;
#   2. export throughput: 20 queued 600 DPI PNG exports of the DVD wrap with the worker pool
#      full (1 worker, the default), timed until the last is done, while wrk reads
#      GET /api/v1/formats; its p99 is reported beside the same read with the pool idle.
# Prints a Markdown table.
#
#   bash bench/scripts/covers_load.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION="${DURATION:-15}"
cargo build --quiet --release --bin covers
source bench/scripts/common.sh
command -v cjpeg >/dev/null || apt-get install -y -q libjpeg-turbo-progs >/dev/null
BIN=target/release/covers

# A 4 MB JPEG (just under the 4 MiB limit): random noise, 2600 x 1900 px, quality 88.
python3 - "$WORK/noise.ppm" <<'PY'
import os, sys
w, h = 2600, 1900
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h))
    f.write(os.urandom(w * h * 3))
PY
cjpeg -quality 88 "$WORK/noise.ppm" > "$WORK/photo.jpg"
SIZE=$(stat -c %s "$WORK/photo.jpg")

printf '[plans.patron]\ndaily_uploads = -1\nuploads_library = -1\ndaily_exports = -1\n[exports]\nworkers = 1\n' > "$WORK/config.toml"
ACCOUNT=$("$BIN" admin --data-dir "$WORK/data" account create --plan patron | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
COVERS_KEY=$("$BIN" admin --data-dir "$WORK/data" key create --account "$ACCOUNT" | python3 -c 'import sys, json; print(json.load(sys.stdin)["key"])')
export COVERS_KEY
PORT=$(port)
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" --config "$WORK/config.toml" >/dev/null 2>&1 &
PIDS+=($!)
wait_port "$PORT"
BASE="http://127.0.0.1:$PORT"

UPLOADS=$(UPLOAD_FILE="$WORK/photo.jpg" wrk -t2 -c2 -d"${DURATION}s" --latency -s bench/scripts/covers_upload.lua "$BASE/api/v1/uploads")
IDLE=$(wrk -t2 -c16 -d"${DURATION}s" --latency "$BASE/api/v1/formats")

DESIGN=$(curl -s -X POST -H "Authorization: Bearer $COVERS_KEY" -d '{"format":"dvd-cover","content":{"type":"movie","query":"Metropolis 1927"},"name":"bench"}' "$BASE/api/v1/designs" | python3 -c 'import sys, json; print(json.load(sys.stdin)["designId"])')
START=$(date +%s.%N)
JOBS=()
for _ in $(seq 1 20); do
  JOBS+=("$(curl -s -X POST -H "Authorization: Bearer $COVERS_KEY" -d '{"output":"png"}' "$BASE/api/v1/designs/$DESIGN/export" | python3 -c 'import sys, json; print(json.load(sys.stdin)["jobId"])')")
done
BUSY=$(wrk -t2 -c16 -d"${DURATION}s" --latency "$BASE/api/v1/formats")
for job in "${JOBS[@]}"; do
  until curl -s -H "Authorization: Bearer $COVERS_KEY" "$BASE/api/v1/exports/$job" | grep -q '"status":"done"'; do sleep 0.2; done
done
END=$(date +%s.%N)
SECS=$(python3 -c "print(round($END - $START, 1))")

echo "| measure | figure |"
echo "|---|---:|"
echo "| uploads per second ($((SIZE / 1024)) KiB JPEG, 2 connections) | $(rps "$UPLOADS") |"
echo "| upload latency p50 / p99 | $(p "$UPLOADS" 50) / $(p "$UPLOADS" 99) |"
echo "| non-2xx uploads | $(non2xx "$UPLOADS" || true) |"
echo "| 20 PNG exports of the DVD wrap (600 DPI), 1 worker | ${SECS} s ($(python3 -c "print(round(20 / $SECS * 60, 1))") per minute) |"
echo "| GET /api/v1/formats, pool idle: requests/s, p99 | $(rps "$IDLE"), $(p "$IDLE" 99) |"
echo "| GET /api/v1/formats, pool full: requests/s, p99 | $(rps "$BUSY"), $(p "$BUSY" 99) |"
