#!/usr/bin/env python3
"""Fill benchmark: `crossword fill` against ingrid_core on the shared benchmark grids.

Both engines fill every grid with the same word list (Spread the Wordlist, which ingrid_core
ships in its source) at the same minimum score, with the same time budget, three runs each,
alternating engines grid by grid. Reports per grid: filled or not, whole-run time (median),
search time (ours: measured inside; ingrid: whole run minus its start-up, measured on an empty
3x3 grid), mean entry score (the list's scores, same function for both); per group: the median
time ratio. Writes Markdown to stdout, JSON to --json, and an SVG chart to --svg.

    cargo install ingrid_core --version 2.0.0 --root target/ingrid
    STWL=$(ls ~/.cargo/registry/src/*/ingrid_core-2.0.0/resources/spreadthewordlist.dict)
    cargo run --release -p indexbuild -- build --lang en --wordlist "$STWL" --wordlist-mode replace \\
        --wordlist-scale 100 --no-blocklist --out target/bench-indexes/stwl
    python3 bench/scripts/fill_runner.py --grids ../shared/bench/grids --ingrid target/ingrid/bin/ingrid_core --wordlist "$STWL" \\
        --index-dir target/bench-indexes/stwl --own-index-dir indexes \\
        --json bench/results/fill-results.json --svg bench/results/fill-chart.svg > bench/results/fill-results.md
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

GROUPS = [("m", "mini 5-7"), ("13_", "standard 13/15"), ("15_", "standard 13/15"), ("15x_", "15x15 other"),
          ("15th_", "15x15 themed"), ("15tl_", "15x15 themeless"), ("21_", "21x21"), ("23_", "23x23")]


def group_of(name):
    for prefix, group in GROUPS:
        if name.startswith(prefix):
            return group
    return "other"


def load_scores(path):
    scores = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            word, _, score = line.strip().rpartition(";")
            if word and score.strip().lstrip("-").isdigit():
                scores["".join(c for c in word.upper() if c.isalpha())] = int(score)
    return scores


# English's shortest slot (`min_slot_length` in corpus/languages.toml).
MIN_SLOT = 3


def slot_cells(rows):
    """Every slot of a grid as its list of (row, col), across then down."""
    n = len(rows)
    out = []
    for across in (True, False):
        at = (lambda i, k: (i, k)) if across else (lambda i, k: (k, i))
        for i in range(n):
            run = []
            for k in range(n + 1):
                if k < n and rows[at(i, k)[0]][at(i, k)[1]] != "#":
                    run.append(at(i, k))
                    continue
                if len(run) >= MIN_SLOT:
                    out.append(run)
                run = []
    return out


def entries(rows):
    """Every slot's text, upper case."""
    return ["".join(rows[r][c] for r, c in cells).upper() for cells in slot_cells(rows)]


def mean_score(rows, scores):
    words = [w for w in entries(rows) if "." not in w]
    known = [scores[w] for w in words if w in scores]
    return sum(known) / len(known) if known else 0.0


def run_ingrid(binary, grid_path, min_score, budget):
    started = time.perf_counter()
    try:
        p = subprocess.run([binary, "--min-score", str(min_score), grid_path], capture_output=True, text=True, timeout=budget)
        wall = time.perf_counter() - started
    except subprocess.TimeoutExpired:
        return {"filled": False, "wall": budget, "timeout": True, "rows": None}
    size = len([l for l in open(grid_path).read().split("\n") if l.strip()])
    rows = [l.strip() for l in p.stdout.split("\n") if len(l.strip()) == size][:size]
    filled = p.returncode == 0 and len(rows) == size and all("." not in r for r in rows)
    return {"filled": filled, "wall": wall, "timeout": False, "rows": rows if filled else None, "proved": p.returncode != 0}


def run_ours(binary, grid_path, index_dir, min_score, budget, strict=True, wordlist=None, cache_dir=None):
    source = ["--wordlist", wordlist, "--cache-dir", cache_dir] if wordlist else ["--index-dir", index_dir]
    args = [binary, "fill", grid_path, *source, "--min-score", str(min_score), "--max-time", str(budget), "--json"]
    if strict:
        args.append("--strict")
    started = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, timeout=budget + 30)
    wall = time.perf_counter() - started
    out = json.loads(p.stdout)
    filled = out["slotsFilled"] == out["slotsTotal"] and "reason" not in out
    return {"filled": filled, "wall": wall, "search": out["stats"]["seconds"], "rows": out["grid"] if filled else None,
            "proved": out["stats"]["provedImpossible"], "level": out["stats"]["minScoreUsed"], "meanOwn": out["stats"]["meanScore"]}


def svg_chart(groups, path):
    names = list(groups)
    width, bar, gap, top, left, height = 760, 26, 40, 40, 170, 0
    rows = len(names)
    height = top + rows * (2 * bar + gap) + 40
    import math
    lo, hi = 0.001, 60.0
    scale = lambda t: left + (math.log10(max(t, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (width - left - 60)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="20" font-size="14">Median whole-run time per group (log scale, seconds; lower is better)</text>']
    for t in (0.01, 0.1, 1, 10):
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{top - 5}" x2="{x:.1f}" y2="{height - 30}" stroke="#ddd"/><text x="{x:.1f}" y="{height - 15}" text-anchor="middle">{t:g}</text>')
    for i, name in enumerate(names):
        y = top + i * (2 * bar + gap)
        g = groups[name]
        out.append(f'<text x="{left - 8}" y="{y + bar + 4}" text-anchor="end">{name}</text>')
        for j, (engine, color) in enumerate((("ingrid", "#c0504d"), ("ours", "#4f81bd"))):
            t = g[engine]
            x = scale(t)
            out.append(f'<rect x="{left}" y="{y + j * bar}" width="{max(x - left, 1):.1f}" height="{bar - 4}" fill="{color}"/>')
            out.append(f'<text x="{x + 4:.1f}" y="{y + j * bar + bar - 9}">{engine} {t:.3g}s</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingrid", required=True)
    ap.add_argument("--crossword", default="target/release/crossword")
    ap.add_argument("--wordlist", required=True, help="the list both engines use (for mean scores)")
    ap.add_argument("--index-dir", help="our index built from the same list")
    ap.add_argument("--ours-wordlist", action="store_true",
                    help="ours reads --wordlist itself (`crossword fill --wordlist`, its index cached by content) "
                         "instead of a prebuilt --index-dir; the cache starts empty and the first run is reported apart")
    ap.add_argument("--own-index-dir", help="also report our own English index")
    ap.add_argument("--grids", required=True, help="folder of the benchmark grids (*.txt), e.g. the shared bench/grids")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--budget", type=float, default=30)
    ap.add_argument("--min-score", type=int, default=50)
    ap.add_argument("--only", default="", help="comma-separated grid names")
    ap.add_argument("--json")
    ap.add_argument("--svg")
    a = ap.parse_args()

    if not a.index_dir and not a.ours_wordlist:
        ap.error("give --index-dir or --ours-wordlist")
    cache_dir = tempfile.mkdtemp(prefix="crossword-list-cache-") if a.ours_wordlist else None
    ours_list = a.wordlist if a.ours_wordlist else None
    scores = load_scores(a.wordlist)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
        t.write("...\n...\n...\n")
        empty = t.name
    startup = statistics.median(run_ingrid(a.ingrid, empty, a.min_score, 60)["wall"] for _ in range(5))
    names = sorted(f[:-4] for f in os.listdir(a.grids) if f.endswith(".txt"))
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    first_run = None
    if a.ours_wordlist:
        # The first run builds the list's index (empty cache), on the first grid; ingrid beside it.
        path = os.path.join(a.grids, names[0] + ".txt")
        cold = run_ours(a.crossword, path, None, a.min_score, a.budget, wordlist=ours_list, cache_dir=cache_dir)
        warm = run_ours(a.crossword, path, None, a.min_score, a.budget, wordlist=ours_list, cache_dir=cache_dir)
        ing = run_ingrid(a.ingrid, path, a.min_score, a.budget)
        first_run = {"grid": names[0], "ours_first": cold["wall"], "ours_second": warm["wall"], "ingrid": ing["wall"]}
        print(f"first run on {names[0]}: ours {cold['wall']:.3f}s (index built), then {warm['wall']:.3f}s (cached); ingrid {ing['wall']:.3f}s", file=sys.stderr)
    results = {}
    for name in names:
        path = os.path.join(a.grids, name + ".txt")
        ing, ours, own = [], [], []
        for _ in range(a.runs):
            ing.append(run_ingrid(a.ingrid, path, a.min_score, a.budget))
            ours.append(run_ours(a.crossword, path, a.index_dir, a.min_score, a.budget, wordlist=ours_list, cache_dir=cache_dir))
        if a.own_index_dir:
            own.append(run_ours(a.crossword, path, a.own_index_dir, a.min_score, a.budget))
        r = {
            "group": group_of(name),
            "ingrid": {"filled": sum(x["filled"] for x in ing), "wall": statistics.median(x["wall"] for x in ing),
                       "timeouts": sum(x["timeout"] for x in ing),
                       "mean": statistics.mean([mean_score(x["rows"], scores) for x in ing if x["rows"]] or [0])},
            "ours": {"filled": sum(x["filled"] for x in ours), "wall": statistics.median(x["wall"] for x in ours),
                     "search": statistics.median(x["search"] for x in ours), "proved": any(x["proved"] for x in ours),
                     "mean": statistics.mean([mean_score(x["rows"], scores) for x in ours if x["rows"]] or [0])},
        }
        r["ingrid"]["search"] = max(r["ingrid"]["wall"] - startup, 0.0)
        if own:
            r["own"] = {"filled": own[0]["filled"], "wall": own[0]["wall"], "mean": own[0]["meanOwn"]}
        results[name] = r
        print(f"{name}: ingrid {r['ingrid']['filled']}/{a.runs} {r['ingrid']['wall']:.3f}s, ours {r['ours']['filled']}/{a.runs} {r['ours']['wall']:.3f}s", file=sys.stderr)

    print(f"Min score {a.min_score}, budget {a.budget:g} s, {a.runs} runs per grid and engine; ingrid start-up (empty 3x3 grid) {startup:.3f} s.")
    if first_run:
        print(f"Ours reads the list itself (`--wordlist`). First run on {first_run['grid']} with an empty cache: ours {first_run['ours_first']:.3f} s "
              f"(building the index), second {first_run['ours_second']:.3f} s; ingrid {first_run['ingrid']:.3f} s "
              f"(ratio {first_run['ingrid'] / first_run['ours_first']:.2f}x on the first run).")
    print()
    print("| grid | ingrid filled | ingrid run s | ingrid search s | ingrid mean | ours filled | ours run s | ours search s | ours mean | run ratio | own index filled | own run s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        i, o = r["ingrid"], r["ours"]
        own = r.get("own")
        ratio = i["wall"] / o["wall"] if o["wall"] else 0
        i_filled = f"{i['filled']}/{a.runs}" + (" (timeout)" if i["timeouts"] else "")
        o_filled = f"{o['filled']}/{a.runs}" + (" (proved unfillable)" if o["proved"] and not o["filled"] else "")
        own_cols = f"{'yes' if own['filled'] else 'no'} | {own['wall']:.3f}" if own else " | "
        mean = lambda m, filled: f"{m:.1f}" if filled else "–"
        print(f"| {name} | {i_filled} | {i['wall']:.3f} | {i['search']:.3f} | {mean(i['mean'], i['filled'])} | {o_filled} | {o['wall']:.3f} | {o['search']:.3f} | {mean(o['mean'], o['filled'])} | {ratio:.1f}x | {own_cols} |")
    groups = {}
    for name, r in results.items():
        groups.setdefault(r["group"], []).append(r)
    summary = {}
    print("\n| group | grids | ingrid filled | ours filled | median ingrid run s | median ours run s | median run ratio | median search ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for g, rs in groups.items():
        run_ratio = statistics.median(r["ingrid"]["wall"] / r["ours"]["wall"] for r in rs)
        # ingrid's search time is its run minus its start-up; below 50 ms that is noise.
        measurable = [r["ingrid"]["search"] / max(r["ours"]["search"], 1e-4) for r in rs if r["ingrid"]["search"] >= 0.05]
        search_ratio = statistics.median(measurable) if measurable else float("nan")
        summary[g] = {"ingrid": statistics.median(r["ingrid"]["wall"] for r in rs), "ours": statistics.median(r["ours"]["wall"] for r in rs)}
        print(f"| {g} | {len(rs)} | {sum(r['ingrid']['filled'] for r in rs)} | {sum(r['ours']['filled'] for r in rs)} | "
              f"{summary[g]['ingrid']:.3f} | {summary[g]['ours']:.3f} | {run_ratio:.1f}x | {'n/a' if search_ratio != search_ratio else f'{search_ratio:.1f}x'} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"startup": startup, "first_run": first_run, "results": results}, f, indent=1)
    if a.svg:
        svg_chart(summary, a.svg)


if __name__ == "__main__":
    main()
