#!/usr/bin/env bash
# Puzzle page weight and time to first paint (headless Chromium from Debian, slow-phone profile;
# see page_weight.mjs) for a published 15x15 puzzle on the release server. Needs node and npm;
# installs playwright-core into the CI cache like the browser test does.
#
#   bash bench/scripts/pages.sh            # 5 runs, medians
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release --bin crossword
source bench/scripts/common.sh
BIN=target/release/crossword
patron_key 'puzzles_per_month = -1\n'
mkdir -p "$WORK/indexes"
TOOLS="${CROSSWORD_CI_CACHE:-$HOME/.cache/crossword-ci}/browser-tools-playwright-core-1.65.1-axe-core-4.14.1"
if [ ! -d "$TOOLS/node_modules/playwright-core" ]; then
  mkdir -p "$TOOLS" && echo '{"name":"browser-tools","private":true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --silent --no-audit --no-fund --no-save playwright-core@1.65.1 axe-core@4.14.1)
fi
command -v chromium >/dev/null || apt-get install -y -q chromium >/dev/null
SP=$(port)
RUST_LOG=warn "$BIN" serve --listen "127.0.0.1:$SP" --data-dir "$WORK/data" --index-dir "$WORK/indexes" --config "$WORK/config.toml" > "$WORK/server.log" 2>&1 &
PIDS+=("$!")
wait_port "$SP"
BODY=$(python3 - <<'PY'
import json, random
top = ["....#.....#....", "....#.....#....", "...............", "...#...#....###", "###....#.......", "......#...#....", ".....#....#....", "...#.......#..."]
rows = [list(r) for r in top] + [None] * 7
for r in range(8, 15):
    rows[r] = ['#' if rows[14 - r][14 - c] == '#' else '.' for c in range(15)]
rnd = random.Random(5)
grid = [''.join(ch if ch == '#' else rnd.choice('ETAOINSHRDLU') for ch in row) for row in rows]
white = lambda r, c: 0 <= r < 15 and 0 <= c < 15 and grid[r][c] != '#'
vocab = "apple brick cloud dance eagle flame grape house ivory jelly knife lemon magic noble ocean piano queen river stone tiger".split()
across, down, n = {}, {}, 0
for r in range(15):
    for c in range(15):
        if not white(r, c): continue
        a = not white(r, c - 1) and white(r, c + 1) and white(r, c + 2)
        d = not white(r - 1, c) and white(r + 1, c) and white(r + 2, c)
        if a or d: n += 1
        if a: across[str(n)] = " ".join(rnd.choice(vocab) for _ in range(rnd.randint(2, 7))).capitalize()
        if d: down[str(n)] = " ".join(rnd.choice(vocab) for _ in range(rnd.randint(2, 7))).capitalize()
print(json.dumps({"title": "A standard fifteen", "author": "Bench", "publish": True, "grid": grid, "clues": {"across": across, "down": down}}))
PY
)
ID=$(curl -s -X POST -H "Authorization: Bearer $CROSSWORD_KEY" -d "$BODY" "http://127.0.0.1:$SP/api/v1/puzzles" | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
node bench/scripts/page_weight.mjs "$TOOLS" "http://127.0.0.1:$SP/p/$ID" "${RUNS:-5}"
