#!/usr/bin/env python3
"""The verdict on grids that neither engine settles at the benchmark's minimum score.

Two measurements, both with Spread the Wordlist (the list of `fill_runner.py`):

1. **Expected number of fills** (`--estimate`), for every grid of the set: the first-moment
   estimate, log10 E = sum over slots of log10(candidates matching its fixed letters) + sum over
   crossing cells of log10(P(the two slots' letters agree)), each slot's letter frequencies by
   position taken from its own candidates, slots treated as independent. It proves nothing
   either way (the theme sets that cannot be filled score well above zero), but where every
   grid that fills stands tells how far from fillable a grid is at a given cut.
2. **Floor sweep** (`--sweep`): both engines, strict, at each minimum score of `--floors`,
   `--runs` runs each, engines alternating, a `--budget` per run. A run that uses the whole
   budget without a fill ends that engine's runs at that floor (the next would time out too).

    python3 bench/research/hard_grids.py --ingrid target/ingrid/bin/ingrid_core --wordlist "$STWL" \\
        --index-dir target/bench-indexes/stwl --estimate --sweep 15tl_gen_64w,15tl_gen_triple15_66w
"""

import argparse
import glob
import math
import os
import statistics
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts"))
from fill_runner import entries, load_scores, run_ingrid, run_ours, slot_cells  # noqa: E402


def read_grid(path):
    return [line.strip().upper() for line in open(path, encoding="utf-8") if line.strip()]


_profiles = {}


def pattern_profile(words_by_length, pattern):
    """(candidates matching `pattern`, per position each letter's share among them), cached."""
    key = (id(words_by_length), pattern)
    if key not in _profiles:
        candidates = [w for w in words_by_length[len(pattern)]
                      if all(p == "." or p == ch for p, ch in zip(pattern, w))]
        shares = [{ch: n / len(candidates) for ch, n in Counter(w[k] for w in candidates).items()}
                  for k in range(len(pattern))] if candidates else []
        _profiles[key] = (len(candidates), shares)
    return _profiles[key]


def log10_expected_fills(rows, words_by_length):
    """The first-moment estimate described above; -inf when a slot has no candidate."""
    total = 0.0
    seen = defaultdict(list)
    for cells in slot_cells(rows):
        count, shares = pattern_profile(words_by_length, "".join(rows[r][c] for r, c in cells))
        if not count:
            return float("-inf")
        total += math.log10(count)
        for cell, share in zip(cells, shares):
            seen[cell].append(share)
    for shares in seen.values():
        if len(shares) == 2:
            agree = sum(p * shares[1].get(ch, 0.0) for ch, p in shares[0].items())
            total += math.log10(agree) if agree > 0 else float("-inf")
    return total


def words_at_least(scores, floor):
    by_length = defaultdict(list)
    for word, score in scores.items():
        if score >= floor:
            by_length[len(word)].append(word)
    return by_length


def fill_quality(rows, scores, floor_goal=50):
    """(mean score, lowest score, entries under `floor_goal`) of a filled grid, by the list."""
    values = [scores.get(w, 0) for w in entries(rows)]
    return statistics.mean(values), min(values), sum(v < floor_goal for v in values)


def sweep(a, scores, names):
    print(f"\n### Floor sweep (strict, budget {a.budget:g} s, up to {a.runs} runs)\n")
    print("| grid | floor | ingrid filled | ingrid median s | ours filled | ours median s | ours mean | ours lowest | ours entries < 50 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        path = os.path.join(a.grids, name + ".txt")
        for floor in a.floors:
            runs = {"ingrid": [], "ours": []}
            open_engines = {"ingrid", "ours"}
            for _ in range(a.runs):
                for engine in ("ingrid", "ours"):
                    if engine not in open_engines:
                        continue
                    if engine == "ingrid":
                        r = run_ingrid(a.ingrid, path, floor, a.budget)
                    else:
                        r = run_ours(a.crossword, path, a.index_dir, floor, a.budget)
                    runs[engine].append(r)
                    if not r["filled"] and r["wall"] >= a.budget * 0.98:
                        open_engines.discard(engine)
            cols = []
            for engine in ("ingrid", "ours"):
                rs = runs[engine]
                filled = [r for r in rs if r["filled"]]
                cols += [f"{len(filled)}/{len(rs)}", f"{statistics.median(r['wall'] for r in rs):.2f}"]
            ours = [r for r in runs["ours"] if r["filled"]]
            if ours:  # fills without a seed are deterministic: the first stands for all
                mean, low, under = fill_quality(ours[0]["rows"], scores)
                cols += [f"{mean:.1f}", str(low), str(under)]
            else:
                cols += ["–", "–", "–"]
            print(f"| {name} | {floor} | " + " | ".join(cols) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingrid", required=True)
    ap.add_argument("--crossword", default="target/release/crossword")
    ap.add_argument("--wordlist", required=True)
    ap.add_argument("--index-dir", required=True, help="our index built from the same list")
    ap.add_argument("--grids", required=True, help="folder of the benchmark grids (*.txt), e.g. the shared bench/grids")
    ap.add_argument("--estimate", action="store_true", help="expected fills of every grid")
    ap.add_argument("--estimate-floors", default="50,40,30,20,0")
    ap.add_argument("--sweep", default="", help="comma-separated grid names for the floor sweep")
    ap.add_argument("--floors", default="50,40,30,20,10,0")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--budget", type=float, default=60)
    a = ap.parse_args()
    a.floors = [int(x) for x in a.floors.split(",")]
    scores = load_scores(a.wordlist)

    if a.estimate:
        floors = [int(x) for x in a.estimate_floors.split(",")]
        lists = {f: words_at_least(scores, f) for f in floors}
        print("### Expected fills, log10 (first-moment estimate, independence assumed)\n")
        print("| grid | slots | " + " | ".join(f"min {f}" for f in floors) + " |")
        print("|---|---:|" + "---:|" * len(floors))
        for path in sorted(glob.glob(os.path.join(a.grids, "*.txt"))):
            rows = read_grid(path)
            values = [log10_expected_fills(rows, lists[f]) for f in floors]
            name = os.path.basename(path)[:-4]
            print(f"| {name} | {len(slot_cells(rows))} | " + " | ".join(f"{v:.1f}" for v in values) + " |", flush=True)
    if a.sweep:
        sweep(a, scores, a.sweep.split(","))


if __name__ == "__main__":
    main()
