// The solving player of the puzzle pages and embeds. No dependencies; reads the puzzle from the
// page's <script type="application/json" id="puzzle-data"> and enhances the server-rendered
// grid and clue lists in place.
(function () {
  "use strict";
  var dataNode = document.getElementById("puzzle-data");
  var root = document.getElementById("player");
  if (!dataNode || !root) return;
  var P = JSON.parse(dataNode.textContent);
  var n = P.size;
  var cells = P.cells; // solution per cell, "#" for a block
  var entries = P.entries; // {n, dir, cells: [i...], clue}
  var board = root.querySelector(".board");
  var gridNode = root.querySelector(".grid");
  var cellNodes = Array.prototype.slice.call(gridNode.querySelectorAll(".cell"));
  var clueNodes = {};
  Array.prototype.forEach.call(root.querySelectorAll(".clue-list li"), function (li) {
    clueNodes[li.getAttribute("data-dir") + li.getAttribute("data-n")] = li;
  });
  var sink = document.getElementById("sink");
  var currentClue = document.getElementById("current-clue");
  var timerNode = document.getElementById("timer");
  var storeKey = "cw:" + P.id + ":" + P.version;

  // ---- Folding typed text like the server folds grid letters (tables from the language's rules).
  var F = P.fold;
  var foldMap = {};
  F.folds.forEach(function (pair) { foldMap[pair[0]] = pair[1]; });
  function inAlphabet(ch) {
    if (F.alphabet) return F.alphabet.indexOf(ch) >= 0;
    var c = ch.codePointAt(0);
    return F.ranges.some(function (r) { return c >= r[0] && c <= r[1]; });
  }
  function hiraganaToKatakana(ch) {
    var c = ch.codePointAt(0);
    if ((c >= 0x3041 && c <= 0x3096) || (c >= 0x309d && c <= 0x309e)) return String.fromCodePoint(c + 0x60);
    return ch;
  }
  function upper(ch) {
    if (F.turkish) { if (ch === "i") return "İ"; if (ch === "ı") return "I"; }
    return ch.toUpperCase();
  }
  // Folds typed text into the language's cell text; characters outside the language vanish.
  function fold(text) {
    text = text.normalize(F.compat ? "NFKC" : "NFC");
    var out = "";
    Array.from(text).forEach(function (ch) {
      if (F.drop.indexOf(ch) >= 0) return;
      if (F.cell === "kana") ch = hiraganaToKatakana(ch);
      if (F.cell !== "letter") {
        if (foldMap[ch] !== undefined) out += foldMap[ch];
        else if (inAlphabet(ch)) out += ch;
        return;
      }
      Array.from(upper(ch)).forEach(function (u) {
        if (inAlphabet(u)) out += u;
        else if (foldMap[u] !== undefined) out += foldMap[u];
        else if (F.stripMarks) {
          Array.from(u.normalize("NFD")).forEach(function (b) {
            if (/\p{M}/u.test(b)) return;
            if (inAlphabet(b)) out += b;
            else if (foldMap[b] !== undefined) out += foldMap[b];
          });
        }
      });
    });
    return F.cell === "kana" || F.cell === "hangul" ? out.normalize("NFC") : out;
  }
  var segmenter = typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter(P.language, { granularity: "grapheme" }) : null;
  function graphemes(text) {
    if (!segmenter) return Array.from(text);
    return Array.from(segmenter.segment(text), function (s) { return s.segment; });
  }

  // ---- State.
  var values = cells.map(function () { return ""; });
  var marks = cells.map(function () { return ""; }); // "", "wrong", "revealed"
  var seconds = 0, running = false, solved = false, ticking = null;
  var composing = -1; // the Hindi cell being typed into
  var interacted = false; // the solver has selected a cell
  var cur = firstWhite(), dir = "across";
  var byCell = cells.map(function () { return { across: null, down: null }; });
  entries.forEach(function (e, k) { e.k = k; e.cells.forEach(function (i) { byCell[i][e.dir] = e; }); });
  if (!byCell[cur].across) dir = "down";

  function firstWhite() { for (var i = 0; i < cells.length; i++) if (cells[i] !== "#") return i; return 0; }
  function entryOf(i, d) { return byCell[i][d] || byCell[i][d === "across" ? "down" : "across"]; }
  function other(d) { return d === "across" ? "down" : "across"; }

  try {
    var saved = JSON.parse(localStorage.getItem(storeKey) || "null");
    if (saved && saved.values && saved.values.length === cells.length) {
      values = saved.values; marks = saved.marks || marks; seconds = saved.seconds || 0; solved = !!saved.solved;
    }
  } catch (e) { /* storage may be unavailable: play without saving */ }
  function save() {
    try { localStorage.setItem(storeKey, JSON.stringify({ values: values, marks: marks, seconds: seconds, solved: solved })); } catch (e) { }
  }

  // ---- Drawing.
  function label(i) {
    var r = Math.floor(i / n) + 1, c = (i % n) + 1;
    var parts = [];
    ["across", "down"].forEach(function (d) { var e = byCell[i][d]; if (e) parts.push(e.n + " " + P.labels[d] + ", " + e.cells.length); });
    var v = values[i] ? values[i] : P.labels.empty;
    return P.labels.row + " " + r + ", " + P.labels.column + " " + c + ": " + parts.join("; ") + ". " + v;
  }
  function draw() {
    var e = entryOf(cur, dir), x = byCell[cur][other(dir)];
    cellNodes.forEach(function (node, i) {
      if (cells[i] === "#") return;
      node.querySelector(".val").textContent = values[i];
      node.classList.toggle("active", i === cur);
      node.classList.toggle("word", !!e && e.cells.indexOf(i) >= 0 && i !== cur);
      node.classList.toggle("cross", !!x && x.cells.indexOf(i) >= 0 && !(e && e.cells.indexOf(i) >= 0));
      node.classList.toggle("wrong", marks[i] === "wrong");
      node.classList.toggle("revealed", marks[i] === "revealed");
      node.setAttribute("aria-label", label(i));
      node.setAttribute("aria-selected", i === cur ? "true" : "false");
      node.tabIndex = i === cur ? 0 : -1;
    });
    Object.keys(clueNodes).forEach(function (key) { clueNodes[key].classList.remove("current", "crossing"); });
    entries.forEach(function (en) {
      var li = clueNodes[en.dir + en.n];
      if (li) li.classList.toggle("done", en.cells.every(function (i) { return values[i]; }));
    });
    if (e) {
      var li = clueNodes[e.dir + e.n];
      if (li) { li.classList.add("current"); if (li.scrollIntoView && document.activeElement !== li) li.scrollIntoView({ block: "nearest" }); }
      currentClue.textContent = e.n + " " + P.labels[e.dir] + ": " + e.clue;
    }
    if (x && clueNodes[x.dir + x.n]) clueNodes[x.dir + x.n].classList.add("crossing");
  }
  function tick() {
    if (timerNode) {
      var m = Math.floor(seconds / 60), s = seconds % 60;
      timerNode.textContent = m + ":" + (s < 10 ? "0" : "") + s;
    }
  }

  // ---- Moving.
  function select(i, d) {
    if (cells[i] === "#") return;
    cur = i;
    composing = -1;
    interacted = true;
    if (d) dir = d;
    if (!byCell[cur][dir]) dir = other(dir);
    start();
    draw();
    focusCell();
  }
  function focusCell() {
    var node = cellNodes[cur];
    if (node && document.activeElement !== sink) node.focus({ preventScroll: true });
    if (sink && matchMedia("(pointer: coarse)").matches === false) sink.focus({ preventScroll: true });
  }
  // A keyboard user who tabs into the grid starts typing at the selected cell.
  gridNode.addEventListener("focusin", function (ev) {
    if (ev.target.classList && ev.target.classList.contains("cell") && sink && !matchMedia("(pointer: coarse)").matches) {
      sink.focus({ preventScroll: true });
    }
  });
  function step(delta) {
    var e = entryOf(cur, dir);
    if (!e) return;
    var k = e.cells.indexOf(cur) + delta;
    if (k >= 0 && k < e.cells.length) cur = e.cells[k];
    composing = -1;
  }
  function nextEmptyInEntry(e, from) {
    for (var k = from; k < e.cells.length; k++) if (!values[e.cells[k]]) return e.cells[k];
    return null;
  }
  function moveVisual(dr, dc) {
    // Arrow keys follow what the solver sees: on a mirrored (right-to-left) grid, left is +1.
    if (P.rtl) dc = -dc;
    var r = Math.floor(cur / n), c = cur % n;
    var wanted = dr !== 0 ? "down" : "across";
    if (byCell[cur][wanted] && dir !== wanted) { dir = wanted; draw(); return; }
    for (;;) {
      r += dr; c += dc;
      if (r < 0 || c < 0 || r >= n || c >= n) return;
      var i = r * n + c;
      if (cells[i] !== "#") { select(i, byCell[i][wanted] ? wanted : dir); return; }
    }
  }
  function jumpEntry(delta) {
    var e = entryOf(cur, dir);
    var k = e ? e.k : -1;
    var next = entries[(k + delta + entries.length) % entries.length];
    var target = nextEmptyInEntry(next, 0);
    select(target === null ? next.cells[0] : target, next.dir);
  }

  // ---- Entering letters.
  function put(text) {
    if (solved) return;
    var folded = fold(text);
    if (!folded) return;
    var e = entryOf(cur, dir);
    if (F.cell === "akshara") {
      // A Hindi cell holds one akshara: letters join the cell being typed while the text stays
      // one cluster (a vowel sign, a virama and the next consonant); the next one moves on.
      graphemes(folded).forEach(function (g) {
        if (composing === cur && graphemes(values[cur] + g).length === 1) { values[cur] += g; marks[cur] = ""; return; }
        if (composing === cur) { var t = e ? nextEmptyInEntry(e, e.cells.indexOf(cur) + 1) : null; if (t !== null) cur = t; else step(1); }
        values[cur] = g; marks[cur] = ""; composing = cur;
      });
      return after();
    }
    graphemes(folded).forEach(function (g, k) {
      if (k > 0) step(1);
      values[cur] = g; marks[cur] = "";
    });
    var target = e ? nextEmptyInEntry(e, e.cells.indexOf(cur) + 1) : null;
    if (target !== null) cur = target; else step(1);
    after();
  }
  function erase() {
    if (solved) return;
    if (values[cur]) { values[cur] = ""; marks[cur] = ""; }
    else { step(-1); values[cur] = ""; marks[cur] = ""; }
    after();
  }
  function after() {
    start();
    draw();
    save();
    progress();
    checkSolved();
  }
  function filledCount() { return values.filter(function (v, i) { return cells[i] !== "#" && v; }).length; }
  var whiteCount = cells.filter(function (c) { return c !== "#"; }).length;
  function checkSolved() {
    if (solved) return;
    for (var i = 0; i < cells.length; i++) if (cells[i] !== "#" && values[i] !== cells[i]) return;
    solved = true;
    stop();
    save();
    showSolved();
    post("solved", { seconds: seconds });
  }
  function showSolved() {
    var box = document.getElementById("solved");
    if (!box) return;
    box.hidden = false;
    box.textContent = P.labels.solved + " " + (timerNode ? timerNode.textContent : "");
  }

  // ---- Timer.
  function start() {
    if (running || solved) return;
    running = true;
    ticking = setInterval(function () { seconds++; tick(); if (seconds % 5 === 0) save(); }, 1000);
    board.classList.remove("paused");
    var pause = document.getElementById("pause");
    if (pause) pause.textContent = P.labels.pause;
  }
  function stop() {
    running = false;
    clearInterval(ticking);
    save();
  }

  // ---- Check, reveal, clear.
  function scope(what) {
    if (what === "letter") return [cur];
    if (what === "word") { var e = entryOf(cur, dir); return e ? e.cells : []; }
    return cells.map(function (c, i) { return i; }).filter(function (i) { return cells[i] !== "#"; });
  }
  function check(what) {
    scope(what).forEach(function (i) { if (values[i] && values[i] !== cells[i]) marks[i] = "wrong"; });
    draw(); save();
  }
  function reveal(what) {
    scope(what).forEach(function (i) { if (values[i] !== cells[i]) { values[i] = cells[i]; marks[i] = "revealed"; } });
    after();
  }
  function clearAll() {
    values = values.map(function () { return ""; }); marks = marks.map(function () { return ""; });
    solved = false; seconds = 0; tick();
    var box = document.getElementById("solved"); if (box) box.hidden = true;
    draw(); save(); progress();
  }

  // ---- Embeds: the message protocol of the public service's clients.
  var embedded = P.embed && window.parent && window.parent !== window;
  function post(event, extra) {
    if (!embedded) return;
    var msg = { type: "crossword-embed", event: event, id: P.id };
    if (extra) Object.keys(extra).forEach(function (k) { msg[k] = extra[k]; });
    window.parent.postMessage(msg, "*");
  }
  function progress() { post("progress", { filled: filledCount(), total: whiteCount }); }
  if (embedded) {
    var lastHeight = 0;
    var report = function () {
      var h = Math.ceil(document.documentElement.scrollHeight);
      if (h !== lastHeight) { lastHeight = h; post("resize", { height: h }); }
    };
    if (window.ResizeObserver) new ResizeObserver(report).observe(document.body);
    window.addEventListener("load", report);
    report();
    window.addEventListener("message", function (ev) {
      var m = ev.data;
      if (!m || m.type !== "crossword-embed" || m.event !== "scheme") return;
      document.documentElement.classList.remove("scheme-light", "scheme-dark");
      if (m.scheme === "light" || m.scheme === "dark") document.documentElement.classList.add("scheme-" + m.scheme);
    });
    if (P.scheme === "auto") post("ready");
  }

  // ---- Wiring.
  cellNodes.forEach(function (node, i) {
    if (cells[i] === "#") return;
    node.addEventListener("click", function () {
      // A click on the selected cell turns the direction (not the first click on the page).
      if (interacted && i === cur && byCell[i][other(dir)]) select(i, other(dir)); else select(i, byCell[i][dir] ? dir : other(dir));
    });
  });
  Object.keys(clueNodes).forEach(function (key) {
    var li = clueNodes[key];
    var act = function () {
      var d = li.getAttribute("data-dir"), num = +li.getAttribute("data-n");
      var e = entries.filter(function (x) { return x.dir === d && x.n === num; })[0];
      if (!e) return;
      var t = nextEmptyInEntry(e, 0);
      select(t === null ? e.cells[0] : t, d);
    };
    li.addEventListener("click", act);
    li.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); act(); } });
  });
  function onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var k = ev.key;
    var handled = true;
    if (k === "ArrowLeft") moveVisual(0, -1);
    else if (k === "ArrowRight") moveVisual(0, 1);
    else if (k === "ArrowUp") moveVisual(-1, 0);
    else if (k === "ArrowDown") moveVisual(1, 0);
    else if (k === "Tab") jumpEntry(ev.shiftKey ? -1 : 1);
    else if (k === " " || k === "Enter") { if (byCell[cur][other(dir)]) dir = other(dir); draw(); }
    else if (k === "Backspace") erase();
    else if (k === "Delete") { values[cur] = ""; marks[cur] = ""; after(); }
    else if (k === "Escape") { var pause = document.getElementById("pause"); if (pause) pause.focus(); }
    else if (k === "Home") { var e = entryOf(cur, dir); if (e) select(e.cells[0], dir); }
    else if (k === "End") { var e2 = entryOf(cur, dir); if (e2) select(e2.cells[e2.cells.length - 1], dir); }
    else handled = false;
    if (handled) { ev.preventDefault(); return; }
    if (k.length >= 1 && k !== "Unidentified" && k !== "Process" && k !== "Dead" && Array.from(k).length === 1 && !ev.isComposing) {
      ev.preventDefault();
      put(k);
    }
  }
  gridNode.addEventListener("keydown", onKey);
  if (sink) {
    sink.addEventListener("keydown", onKey);
    // Text from input methods (kana, Devanagari keyboards) arrives as input events.
    sink.addEventListener("input", function () { var t = sink.value; sink.value = ""; if (t) put(t); });
  }
  function on(id, f) { var el = document.getElementById(id); if (el) el.addEventListener("click", f); }
  on("pause", function () {
    if (running) { stop(); board.classList.add("paused"); this.textContent = P.labels.resume; } else { start(); focusCell(); }
  });
  Array.prototype.forEach.call(root.querySelectorAll(".menu > button"), function (b) {
    b.addEventListener("click", function () {
      var open = !b.parentNode.classList.contains("open");
      Array.prototype.forEach.call(root.querySelectorAll(".menu"), function (m) { m.classList.remove("open"); });
      b.parentNode.classList.toggle("open", open);
      b.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
  Array.prototype.forEach.call(root.querySelectorAll("[data-action]"), function (b) {
    b.addEventListener("click", function () {
      var parts = b.getAttribute("data-action").split(":");
      if (parts[0] === "check") check(parts[1]);
      if (parts[0] === "reveal") reveal(parts[1]);
      if (parts[0] === "clear") clearAll();
      if (parts[0] === "print") {
        document.body.classList.toggle("print-solution", parts[1] === "solution");
        var keep = values.slice();
        if (parts[1] === "solution") { values = cells.map(function (c) { return c === "#" ? "" : c; }); draw(); }
        window.print();
        values = keep; draw();
        document.body.classList.remove("print-solution");
      }
      Array.prototype.forEach.call(root.querySelectorAll(".menu"), function (m) { m.classList.remove("open"); });
      focusCell();
    });
  });
  // An on-screen keyboard in the puzzle's alphabet on touch screens.
  var kb = document.getElementById("keyboard");
  if (kb && P.keyboard.length && window.matchMedia && matchMedia("(pointer: coarse)").matches) {
    P.keyboard.forEach(function (key) {
      var b = document.createElement("button");
      b.type = "button"; b.textContent = key; b.setAttribute("aria-label", key);
      b.addEventListener("click", function () { put(key); });
      kb.appendChild(b);
    });
    var back = document.createElement("button");
    back.type = "button"; back.textContent = "⌫"; back.setAttribute("aria-label", P.labels.erase);
    back.addEventListener("click", erase);
    kb.appendChild(back);
    kb.hidden = false;
    if (sink) sink.setAttribute("inputmode", "none");
  }
  // The age check of puzzles with adult themes.
  var gate = document.getElementById("gate");
  if (gate) {
    on("gate-ok", function () { gate.hidden = true; board.hidden = false; select(cur, dir); });
  }
  document.addEventListener("visibilitychange", function () { if (document.hidden && running) { stop(); board.classList.add("paused"); var p = document.getElementById("pause"); if (p) p.textContent = P.labels.resume; } });
  tick();
  draw();
  if (solved) showSolved();
  progress();
  root.classList.add("ready");
})();
