#!/usr/bin/env python3
"""Soak and overload: mixed traffic against both release servers for a while (default 10 min).

Started by bench/soak/run.sh, which builds and starts the servers and passes their addresses,
keys and process ids in the environment. Traffic, all at once for the whole run:

  - word searches: driven by wrk from run.sh (its latencies are exact; this script's Python
    clients would add their own scheduling to every figure), paced at a steady high rate or flat
    out (SOAK_WORDS), the route whose p99 must stay under 5 ms while everything else runs;
  - clue lookups (GET /api/v1/clues/{word}, 1 client);
  - fills (POST /api/v1/fill of an open 9x9, which runs its whole 10 s, 2 clients from 2
    accounts): the solver pool (solver_threads = 2) is always full, and a third fill gets the
    designed 429 SOLVER_BUSY;
  - puzzle writes (create, edit, publish, delete; 1 client);
  - cover composes (POST /api/compose and POST /api/v1/designs; 1 client);
  - cover exports (600 DPI PNG; 1 client keeping the export queue at least 3 deep).

SOAK_TRAFFIC (comma-separated: clues, fills, puzzles, composes, exports; default all) narrows the
traffic to find what a latency figure owes to which part.

Every 10 s the resident memory (VmRSS, and its anonymous and file-backed parts) of both servers
and the size of both database files are sampled. Prints a Markdown report and
writes the figures as JSON to bench/results/soak.json. Only the designed 429s count as allowed
errors; anything else is listed.
"""

import http.client
import json
import os
import random
import sys
import threading
import time

DURATION = float(os.environ.get("SOAK_SECONDS", "600"))
CW = os.environ["CROSSWORD_ADDR"]
CV = os.environ["COVERS_ADDR"]
KEYS = os.environ["CROSSWORD_KEYS"].split(",")
COVERS_KEY = os.environ["COVERS_KEY"]
PIDS = {"crossword": int(os.environ["CROSSWORD_PID"]), "covers": int(os.environ["COVERS_PID"])}
DATABASES = {name: path for name, path in (("crossword", os.environ.get("CROSSWORD_DATABASE", "")),
                                          ("covers", os.environ.get("COVERS_DATABASE", ""))) if path}
WORDS_LABEL = os.environ.get("WORDS_LABEL", "GET /words (wrk)")
OUT = os.environ.get("SOAK_OUT", "bench/results/soak.json")

WORDS = ["cat", "area", "ere", "oleo", "alee", "esne", "santa", "paris", "dog", "tree"]
OPEN9 = ["........."] * 9

lock = threading.Lock()
samples = {}     # route -> [latency ms]
statuses = {}    # (route, status, code) -> count
stop = threading.Event()


def record(route, ms, status, code=""):
    with lock:
        samples.setdefault(route, []).append(ms)
        statuses[(route, status, code)] = statuses.get((route, status, code), 0) + 1


class Client:
    """One keep-alive connection; reconnects when the server closes it."""

    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.conn = None

    def send(self, method, path, headers, body=None, route=None, timeout=30):
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            started = time.perf_counter()
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except (ConnectionError, http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 1:
                    record(route or path, (time.perf_counter() - started) * 1000, 0, "connection")
                    return 0, b""
                continue
            ms = (time.perf_counter() - started) * 1000
            code = ""
            if response.status >= 400:
                try:
                    code = json.loads(data).get("code", "")
                except ValueError:
                    pass
            record(route or path, ms, response.status, code)
            return response.status, data
        return 0, b""


def auth(key):
    return {"Authorization": "Bearer " + key, "Content-Type": "application/json"}


def clues():
    c = Client(CW)
    h = auth(KEYS[0])
    while not stop.is_set():
        c.send("GET", "/api/v1/clues/" + random.choice(WORDS), h, route="GET /clues/{word}")
        time.sleep(0.005)


def fills(key):
    c = Client(CW)
    h = auth(key)
    body = json.dumps({"grid": OPEN9, "max_time": 10})
    while not stop.is_set():
        c.send("POST", "/api/v1/fill", h, body, route="POST /fill", timeout=60)


def busy_probe():
    """A third fill now and then: the pool is full, so the designed answer is 429 SOLVER_BUSY."""
    c = Client(CW)
    h = auth(KEYS[1])
    body = json.dumps({"grid": ["...", "...", "..."], "max_time": 1})
    while not stop.is_set():
        time.sleep(5)
        c.send("POST", "/api/v1/fill", h, body, route="POST /fill (third)")


def puzzles():
    c = Client(CW)
    h = auth(KEYS[0])
    mini = {"title": "Soak", "author": "Ann", "grid": ["CAT", "ODE", "WET"],
            "clues": {"across": {"1": "Pet", "4": "Poem", "5": "Damp"},
                      "down": {"1": "Milk source", "2": "Citrus drink", "3": "Vietnamese new year"}}}
    n = 0
    while not stop.is_set():
        n += 1
        status, data = c.send("POST", "/api/v1/puzzles", h, json.dumps(mini), route="POST /puzzles")
        if status != 201:
            continue
        pid = json.loads(data)["id"]
        c.send("PATCH", "/api/v1/puzzles/" + pid, h, json.dumps({"title": "Soak %d" % n}), route="PATCH /puzzles/{id}")
        c.send("POST", "/api/v1/puzzles/%s/publish" % pid, h, "{}", route="POST /puzzles/{id}/publish")
        c.send("GET", "/api/v1/puzzles/" + pid, h, route="GET /puzzles/{id}")
        if n % 2 == 0:
            c.send("DELETE", "/api/v1/puzzles/" + pid, h, route="DELETE /puzzles/{id}")
        time.sleep(0.01)


def composes():
    c = Client(CV)
    h = auth(COVERS_KEY)
    formats = ["cd", "jcard", "dvd-cover", "slipcover", "cassette"]
    n = 0
    while not stop.is_set():
        n += 1
        f = random.choice(formats)
        c.send("POST", "/api/compose", {"Content-Type": "application/json"},
               json.dumps({"format": f, "text": {"title": "Soak %d" % n}}), route="POST /api/compose")
        status, data = c.send("POST", "/api/v1/designs", h, json.dumps({"format": f, "name": "Soak %d" % n}),
                              route="POST /api/v1/designs")
        if status == 201 and n % 2 == 0:
            design = json.loads(data)["designId"]
            c.send("DELETE", "/api/v1/designs/" + design, h, route="DELETE /api/v1/designs/{id}")
        time.sleep(0.02)


def exports():
    c = Client(CV)
    h = auth(COVERS_KEY)
    status, data = c.send("POST", "/api/v1/designs", h, json.dumps({"format": "dvd-cover", "name": "Export"}),
                          route="POST /api/v1/designs")
    design = json.loads(data)["designId"]
    pending = []
    while not stop.is_set():
        while len(pending) < 3:
            status, data = c.send("POST", "/api/v1/designs/%s/export" % design, h, json.dumps({"output": "png"}),
                                  route="POST /designs/{id}/export")
            if status != 202:
                break
            pending.append(json.loads(data)["jobId"])
        time.sleep(1)
        still = []
        for job in pending:
            status, data = c.send("GET", "/api/v1/exports/" + job, h, route="GET /exports/{id}")
            state = json.loads(data).get("status") if status == 200 else "?"
            if state in ("queued", "running"):
                still.append(job)
            else:
                record("export jobs", 0, 200 if state == "done" else 500, state)
        pending = still


def rss_kib(pid, field="VmRSS"):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def sample(started):
    """One memory sample: each server's VmRSS, split into anonymous memory (heap, redb's page
    cache) and file-backed pages (the memory-mapped indexes), in MiB, and the size of each data
    folder's database file."""
    row = {"second": round(time.time() - started)}
    for name, pid in PIDS.items():
        row[name] = rss_kib(pid) // 1024
        row[name + "Anon"] = rss_kib(pid, "RssAnon") // 1024
        row[name + "File"] = rss_kib(pid, "RssFile") // 1024
    for name, path in DATABASES.items():
        row[name + "DatabaseMiB"] = round(os.path.getsize(path) / (1 << 20), 1) if os.path.exists(path) else 0
    return row


def main():
    clients = {"clues": [clues], "fills": [busy_probe] + [lambda i=i: fills(KEYS[i % len(KEYS)]) for i in range(2)],
               "puzzles": [puzzles], "composes": [composes], "exports": [exports]}
    chosen = os.environ.get("SOAK_TRAFFIC", ",".join(clients)).split(",")
    threads = [threading.Thread(target=t) for name in chosen if name for t in clients[name]]
    for t in threads:
        t.daemon = True
        t.start()
    memory = []
    started = time.time()
    while time.time() - started < DURATION:
        memory.append(sample(started))
        time.sleep(min(10, max(0, DURATION - (time.time() - started))))
    stop.set()
    memory.append(sample(started))
    for t in threads:
        t.join(timeout=70)
    elapsed = time.time() - started
    report(elapsed, memory)


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def to_ms(text):
    """wrk's latency figure (`812.00us`, `1.23ms`, `2.01s`) in milliseconds."""
    for unit, scale in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit):
            return round(float(text[: -len(unit)]) * scale, 3)
    return float(text)


def report(elapsed, memory):
    allowed = {(429, "SOLVER_BUSY")}
    routes = {}
    for route, values in sorted(samples.items()):
        if route == "export jobs":
            continue
        routes[route] = {"requests": len(values), "perSecond": round(len(values) / elapsed, 1),
                         "p50ms": round(pct(values, 0.50), 2), "p99ms": round(pct(values, 0.99), 2)}
    errors = [{"route": r, "status": s, "code": c, "count": n} for (r, s, c), n in sorted(statuses.items())
              if (s >= 400 or s == 0) and r != "export jobs"]
    unexpected = [e for e in errors if (e["status"], e["code"]) not in allowed]
    jobs = {c: n for (r, s, c), n in statuses.items() if r == "export jobs"}
    failed_jobs = sum(n for state, n in jobs.items() if state != "done")
    if failed_jobs:
        unexpected.append({"route": "export jobs", "status": 500, "code": "not done", "count": failed_jobs})
    words = os.environ.get("WORDS_WRK")
    if words and os.path.exists(words):
        waited = time.time()
        while "Requests/sec" not in open(words).read() and time.time() - waited < 60:
            time.sleep(1)
        text = open(words).read()
        figures = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in ("50%", "99%"):
                figures[parts[0]] = to_ms(parts[1])
            if line.startswith("Requests/sec:"):
                figures["rps"] = float(parts[1])
            if "requests in" in line:
                figures["requests"] = int(parts[0])
            if line.strip().startswith("Non-2xx"):
                errors.append({"route": "GET /words", "status": -1, "code": "non-2xx", "count": int(parts[-1])})
        routes[WORDS_LABEL] = {"requests": figures.get("requests", 0), "perSecond": figures.get("rps", 0.0),
                                                     "p50ms": figures.get("50%", 0.0), "p99ms": figures.get("99%", 0.0)}
        unexpected = [e for e in errors if (e["status"], e["code"]) not in allowed]
    half = [m for m in memory if m["second"] >= elapsed / 2]
    result = {"seconds": round(elapsed), "routes": routes, "errors": errors, "unexpectedErrors": unexpected,
              "exportJobs": jobs, "memoryMiB": memory,
              "secondHalfGrowthMiB": {name: (half[-1][name] - half[0][name]) if half else 0 for name in PIDS},
              "secondHalfAnonGrowthMiB": {name: (half[-1][name + "Anon"] - half[0][name + "Anon"]) if half else 0
                                          for name in PIDS}}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1)
    print("| route | requests | per second | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for route, r in routes.items():
        print("| %s | %d | %.1f | %.2f | %.2f |" % (route, r["requests"], r["perSecond"], r["p50ms"], r["p99ms"]))
    print()
    print("Errors: " + (", ".join("%s %s %s x%d" % (e["route"], e["status"], e["code"], e["count"]) for e in errors) or "none"))
    print("Unexpected errors: %d" % len(unexpected))
    words_p99 = routes.get(WORDS_LABEL, {}).get("p99ms")
    if words_p99 is not None:
        verdict = "under" if words_p99 < 5 else "NOT under"
        print("GET /words p99 with the solver pool and the export queue full: %.2f ms, %s the 5 ms target" % (words_p99, verdict))
    print("Export jobs: %s" % jobs)
    print("Resident memory (MiB) every ~10 s:")
    for name in PIDS:
        series = [m[name] for m in memory]
        anon = [m[name + "Anon"] for m in memory]
        print("  %s: start %d, peak %d, end %d; growth over the second half %+d "
              "(anonymous: start %d, end %d, second half %+d; file-backed at the end %d; database %s MiB)" %
              (name, series[0], max(series), series[-1], result["secondHalfGrowthMiB"][name],
               anon[0], anon[-1], result["secondHalfAnonGrowthMiB"][name], memory[-1][name + "File"],
               memory[-1].get(name + "DatabaseMiB", "?")))
    print("(%d s, %d cores shared by the client and both servers)" % (elapsed, os.cpu_count()))
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
