#!/usr/bin/env python3
"""Settle a grid with a SAT solver: a fill, or a proof that none exists.

The fill benchmark's two generated themelesses are settled by neither our solver nor
ingrid_core within their budgets. This script asks a different kind of engine, a CDCL SAT
solver, the same question over the same words: the entries of one of our index files (listed
with `crossword words`), at one minimum score.

Encoding (the "support" encoding, whose unit propagation is arc consistency):

* one variable per (slot, candidate word) and one per (cell, letter);
* each slot takes at least one of its candidates;
* a word implies its letters: not x(s,w) or y(cell_k, w[k]);
* a cell holds at most one letter (pairwise), which also makes a slot take at most one word;
* a letter needs a word: not y(c,l) or the disjunction of the candidates of each slot through c
  that put l there;
* no entry twice: not x(s,w) or not x(t,w) for every pair of same-length slots (`--no-dups`
  drops these, a relaxation: an unsatisfiable answer still proves the grid impossible).

Needs `pip install python-sat` (the solvers ship inside that package). Usage:

    python3 bench/research/sat_verdict.py GRID --index-dir DIR [--min-score 50] [--solver kissat404]
        [--binary target/release/crossword] [--dimacs OUT.cnf] [--json OUT.json]

Prints the verdict (and the fill, if there is one); `--json` also writes it as JSON.
"""

import argparse
import itertools
import json
import subprocess
import sys
import time
from collections import defaultdict


def read_grid(path):
    rows = [line.strip() for line in open(path, encoding="utf-8") if line.strip()]
    if any(len(r) != len(rows) for r in rows):
        sys.exit(f"{path}: not square")
    return rows


def slots_of(rows, min_len):
    """Across then down runs of white cells, each as a list of (row, col)."""
    n = len(rows)
    slots = []
    for across in (True, False):
        for a in range(n):
            run = []
            for b in range(n + 1):
                cell = (a, b) if across else (b, a)
                if b < n and rows[cell[0]][cell[1]] != "#":
                    run.append(cell)
                    continue
                if len(run) >= min_len:
                    slots.append(run)
                run = []
    return slots


def words_of_length(binary, index_dir, length, min_score):
    out = subprocess.run(
        [binary, "words", "_" * length, "--index-dir", index_dir, "--min-score", str(min_score),
         "--limit", "10000000", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    return [w["word"] for w in json.loads(out)["words"]]


def encode(rows, slots, words_by_len, dups):
    clauses = []
    next_var = [0]

    def new_var():
        next_var[0] += 1
        return next_var[0]

    candidates, word_vars = [], []
    for slot in slots:
        fixed = [rows[r][c].upper() if rows[r][c] not in ".#" else None for r, c in slot]
        cands = [w for w in words_by_len[len(slot)] if all(f is None or f == w[i] for i, f in enumerate(fixed))]
        candidates.append(cands)
        word_vars.append([new_var() for _ in cands])
    cells = sorted({cell for slot in slots for cell in slot})
    letters = sorted({ch for cands in candidates for w in cands for ch in w})
    letter_var = {}
    for cell in cells:
        vs = [new_var() for _ in letters]
        letter_var.update({(cell, ch): v for ch, v in zip(letters, vs)})
        clauses.extend([-a, -b] for a, b in itertools.combinations(vs, 2))
    for slot, cands, xs in zip(slots, candidates, word_vars):
        clauses.append(list(xs))
        support = defaultdict(list)
        for w, x in zip(cands, xs):
            for cell, ch in zip(slot, w):
                clauses.append([-x, letter_var[cell, ch]])
                support[cell, ch].append(x)
        for cell in slot:
            for ch in letters:
                clauses.append([-letter_var[cell, ch]] + support.get((cell, ch), []))
    if dups:
        for a, b in itertools.combinations(range(len(slots)), 2):
            if len(slots[a]) != len(slots[b]):
                continue
            other = dict(zip(candidates[b], word_vars[b]))
            clauses.extend([-x, -other[w]] for w, x in zip(candidates[a], word_vars[a]) if w in other)
    return clauses, next_var[0], candidates, word_vars


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("grid")
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--min-score", type=int, default=50)
    ap.add_argument("--min-slot", type=int, default=3, help="shortest run that is a slot (English: 3)")
    ap.add_argument("--solver", default="kissat404", help="a python-sat solver name")
    ap.add_argument("--binary", default="target/release/crossword")
    ap.add_argument("--no-dups", action="store_true", help="drop the no-repeat clauses (a relaxation)")
    ap.add_argument("--dimacs", help="also write the formula here (DIMACS CNF)")
    ap.add_argument("--json", help="write the verdict here")
    args = ap.parse_args()

    started = time.time()
    rows = read_grid(args.grid)
    # Complete slots (theme entries) are given, not asked: their letters constrain the crossings.
    slots = [s for s in slots_of(rows, args.min_slot) if any(rows[r][c] == "." for r, c in s)]
    lengths = sorted({len(s) for s in slots})
    words_by_len = {n: words_of_length(args.binary, args.index_dir, n, args.min_score) for n in lengths}
    clauses, n_vars, candidates, word_vars = encode(rows, slots, words_by_len, not args.no_dups)
    encoded = time.time()
    print(f"{args.grid}: {len(slots)} slots, {sum(map(len, candidates))} candidates, "
          f"{n_vars} variables, {len(clauses)} clauses ({encoded - started:.1f} s to encode)", flush=True)
    if args.dimacs:
        with open(args.dimacs, "w") as f:
            f.write(f"p cnf {n_vars} {len(clauses)}\n")
            f.writelines(" ".join(map(str, c)) + " 0\n" for c in clauses)

    from pysat.solvers import Solver  # imported late: --dimacs works without python-sat

    with Solver(name=args.solver, bootstrap_with=clauses) as solver:
        satisfiable = solver.solve()
        model = set(solver.get_model() or []) if satisfiable else set()
    solved = time.time()
    verdict = {
        "grid": args.grid, "minScore": args.min_score, "solver": args.solver, "dups": not args.no_dups,
        "slots": len(slots), "candidates": sum(map(len, candidates)), "variables": n_vars,
        "clauses": len(clauses), "encodeSeconds": round(encoded - started, 1),
        "solveSeconds": round(solved - encoded, 1), "fillable": bool(satisfiable),
    }
    if satisfiable:
        grid = [list(r.upper()) for r in rows]
        entries = []
        for slot, cands, xs in zip(slots, candidates, word_vars):
            word = next(w for w, x in zip(cands, xs) if x in model)
            entries.append(word)
            for (r, c), ch in zip(slot, word):
                grid[r][c] = ch
        verdict["fill"] = ["".join(r) for r in grid]
        verdict["repeats"] = len(entries) - len(set(entries))
    print(json.dumps(verdict, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(verdict, f, indent=1)


if __name__ == "__main__":
    main()
