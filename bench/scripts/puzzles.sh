#!/usr/bin/env bash
# Puzzle storage benchmark: POST /api/v1/puzzles (15x15 drafts, every entry clued, about 3 KB
# each) and GET /api/v1/puzzles/{id} under load, with the redb file on disk, driven by wrk
# (Debian package); then the database file's size per 10,000 puzzles. Clues are random words of
# a 300-word vocabulary (3 to 7 each), so compression sees varied text. Prints a Markdown table.
#
#   bash bench/scripts/puzzles.sh
#   DURATION=30 CONNECTIONS=32 bash bench/scripts/puzzles.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"

cargo build --quiet --release --bin crossword
source bench/scripts/common.sh

BIN=target/release/crossword
patron_key 'puzzles_per_month = -1\n'
mkdir -p "$WORK/indexes"

# The request body: a 15x15 pattern with letters and a clue for every entry.
python3 - "$WORK/body.json" <<'PY'
import json, sys, random
top = ["....#.....#....", "....#.....#....", "...............", "...#...#....###",
       "###....#.......", "......#...#....", ".....#....#....", "...#.......#..."]
rows = [list(r) for r in top] + [None] * 7
for r in range(8, 15):
    rows[r] = ['#' if rows[14 - r][14 - c] == '#' else '.' for c in range(15)]
rnd = random.Random(7)
# Clues of ordinary length from a varied vocabulary, so compression sees realistic text.
vocab = ("about above actor after again agent album alley amber angle apple arena aroma atlas award bacon badge baker "
         "banjo baron basin beach beard berry bingo blade blaze blend board boast bonus booth brave bread brick bride "
         "brook broom brush cabin cable camel canal candy cargo cedar chalk charm chess chief choir cider cigar civic "
         "cliff clock cloud coach coast cobra comet coral couch crane crest crown cubic curry daisy dance delta depot "
         "diary disco diver dozen drama dream dwarf eagle ebony elbow elder ember enemy entry equal essay event fable "
         "fairy feast fence ferry fever fiber field flame flask fleet flint flock flora flute focal forge forum frost "
         "fruit gauge ghost giant glade glaze globe grain grape grove guard guest guide habit harbor hazel heart hedge "
         "honey hotel house humor ivory jelly jewel joker judge juice kayak kiosk knife koala label lance laser lemon "
         "level light lilac linen llama lodge lunar lyric magic manor maple march medal melon metal mimic minor mocha "
         "motor mural naval nerve noble north novel ocean olive opera orbit otter oxide paint panel patio pearl pedal "
         "piano pilot pizza plaza poker polar pound press prism pulse quart queen quiet radar ranch raven relay rhyme "
         "rider river robin rodeo rover royal rugby salad salon sauce scale scarf scout shade shore siren skate slate "
         "solar sonic spice spine spoon squad stage steam stone storm sugar swift syrup table tango theme tiger toast "
         "topaz torch tower trail train trout tulip tuner ultra umbra union urban usher valve vapor vault venue verse "
         "video vigor vinyl viola vivid vocal wagon waltz whale wheat widow wind witch world yacht yeast youth zebra").split()
clue = lambda: " ".join(rnd.choice(vocab) for _ in range(rnd.randint(3, 7))).capitalize()
grid = [''.join(ch if ch == '#' else rnd.choice('ETAOINSHRDLU') for ch in row) for row in rows]
white = lambda r, c: 0 <= r < 15 and 0 <= c < 15 and grid[r][c] != '#'
across, down, n = {}, {}, 0
for r in range(15):
    for c in range(15):
        if not white(r, c):
            continue
        a = not white(r, c - 1) and white(r, c + 2) and white(r, c + 1)
        d = not white(r - 1, c) and white(r + 2, c) and white(r + 1, c)
        if a or d:
            n += 1
        if a:
            across[str(n)] = clue()
        if d:
            down[str(n)] = clue()
body = {"title": "Benchmark puzzle", "author": "Bench", "grid": grid, "clues": {"across": across, "down": down},
        "writeup": "A constructor's note of a couple of sentences, as most puzzles carry one."}
open(sys.argv[1], 'w').write(json.dumps(body))
PY
export PUZZLE_BODY="$WORK/body.json"

SP=$(port)
RUST_LOG="${RUST_LOG:-warn}" "$BIN" serve --listen "127.0.0.1:$SP" --data-dir "$WORK/data" --index-dir "$WORK/indexes" --config "$WORK/config.toml" > "$WORK/server.log" 2>&1 &
SERVER=$!; PIDS+=("$SERVER")
wait_port "$SP"

run() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@"; }
CREATE=$(run -s bench/scripts/puzzles_create.lua "http://127.0.0.1:$SP")
TOTAL=$(curl -s -H "Authorization: Bearer $CROSSWORD_KEY" "http://127.0.0.1:$SP/api/v1/puzzles?limit=100" | python3 -c 'import sys, json; print(json.load(sys.stdin)["total"])')
curl -s -H "Authorization: Bearer $CROSSWORD_KEY" "http://127.0.0.1:$SP/api/v1/puzzles?limit=100" \
  | python3 -c 'import sys, json; [print(p["id"]) for p in json.load(sys.stdin)["puzzles"]]' > "$WORK/ids.txt"
export PUZZLE_IDS="$WORK/ids.txt"
READ=$(run -s bench/scripts/puzzles_get.lua "http://127.0.0.1:$SP")
RSS=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
BYTES=$(stat -c %s "$WORK/data/crossword.redb")

echo "| operation | requests/s | p50 | p99 | non-2xx |"
echo "|---|---:|---:|---:|---:|"
echo "| POST /api/v1/puzzles (15x15 draft, 3 KB) | $(rps "$CREATE") | $(p "$CREATE" 50) | $(p "$CREATE" 99) | $(non2xx "$CREATE") |"
echo "| GET /api/v1/puzzles/{id} (100 ids) | $(rps "$READ") | $(p "$READ" 50) | $(p "$READ" 99) | $(non2xx "$READ") |"
python3 -c "print(f'\nDatabase: {$TOTAL} puzzles in {$BYTES / 2**20:.1f} MiB, {$BYTES / $TOTAL * 10000 / 2**20:.1f} MiB per 10,000 puzzles (file size after a clean shutdown).')"
echo "Server peak memory: $((RSS / 1024)) MiB."
echo "(wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, $(nproc) cores shared by wrk and the server; every write is an fsync'd redb commit)"
