// The cover designer: edits the design's intent and sends it whole to PUT /design/{id}, which
// answers with the sheet drawn by the server (the same drawing as the exports). Signed in, it
// saves a composed design to the account (POST /design/{id}/save) and exports a saved one
// (POST /design/{id}/export, then polls the job); those requests carry the session's CSRF token
// from the page's meta element. A saved design of another account is read-only. No dependencies.
(() => {
  "use strict";
  const main = document.getElementById("designer");
  const sheet = document.getElementById("sheet");
  const form = document.getElementById("panel");
  const status = document.getElementById("status");
  const undoButton = document.getElementById("undo");
  const redoButton = document.getElementById("redo");
  const download = document.getElementById("download");
  const id = main.dataset.id;
  const mode = main.dataset.mode; // composed | owner | readonly
  const csrfMeta = document.querySelector("meta[name=csrf-token]");
  const csrf = csrfMeta ? csrfMeta.content : "";
  const jsonHeaders = { "content-type": "application/json", ...(csrf ? { "x-csrf-token": csrf } : {}) };
  const layers = JSON.parse(document.getElementById("layers").textContent);
  let intent = JSON.parse(document.getElementById("intent").textContent);
  const undo = [];
  const redo = [];
  let selected = null; // { kind: "text" | "decal", i }
  let version = 0;
  let sending = Promise.resolve();

  const clone = (v) => JSON.parse(JSON.stringify(v));
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  const round = (v) => Math.round(v * 100) / 100;

  function say(text) {
    status.textContent = text;
  }

  // Sends the intent; the server's SVG replaces the sheet. Edits are sent one after another.
  function send() {
    const body = JSON.stringify(intent);
    const mine = ++version;
    sending = sending.then(async () => {
      say("Saving…");
      try {
        const r = await fetch(`/design/${id}`, { method: "PUT", headers: jsonHeaders, body });
        const answer = await r.json();
        if (!r.ok) {
          say(answer.detail || "The change was refused.");
          return;
        }
        if (mine !== version) return; // a newer edit is on its way
        sheet.innerHTML = answer.svg;
        markSelected();
        const dropped = answer.unsupported.map((u) => `${u.field}: ${u.reason}`);
        say(dropped.length ? "Saved, except " + dropped.join("; ") : "Saved.");
        download.href = `/design/${id}/preview.png?v=${mine}`;
        main.dataset.version = String(mine);
      } catch (e) {
        say("Not saved: " + e);
      }
    });
  }

  // Records the current intent for undo, applies `change` to a copy and sends it.
  function commit(change) {
    if (mode === "readonly") {
      say("This saved design is read-only: only its owner, signed in, edits it.");
      return;
    }
    undo.push(clone(intent));
    redo.length = 0;
    const next = clone(intent);
    change(next);
    intent = next;
    afterChange();
  }

  function afterChange() {
    undoButton.disabled = undo.length === 0;
    redoButton.disabled = redo.length === 0;
    renderLists();
    send();
  }

  function step(from, to) {
    if (!from.length) return;
    to.push(clone(intent));
    intent = from.pop();
    fillForm();
    afterChange();
  }

  undoButton.addEventListener("click", () => step(undo, redo));
  redoButton.addEventListener("click", () => step(redo, undo));

  // ---- The form: style, title texts, shown fields.
  const style = () => intent.style || (intent.style = {});
  function fillForm() {
    const s = intent.style || {};
    form.elements.background.value = (s.background && s.background.color) || "#111111";
    form.elements.labelColor.value = s.labelColor || "#ffffff";
    if (s.font) form.elements.font.value = s.font;
    if (form.elements.finish && s.finish) form.elements.finish.value = s.finish;
    for (const key of ["title", "tagline", "synopsis"]) {
      if (form.elements[key] && intent[key] !== undefined) form.elements[key].value = intent[key];
    }
    const hidden = (intent.layout && intent.layout.hide) || [];
    for (const box of form.querySelectorAll("input[name=show]")) box.checked = !hidden.includes(box.value);
  }

  form.addEventListener("change", (e) => {
    const t = e.target;
    if (t.closest("#texts") || t.closest("#decals") || t.id === "decal-choice") return;
    if (t.name === "background") commit((n) => { (n.style = n.style || {}).background = { color: t.value }; });
    else if (t.name === "labelColor") commit((n) => { (n.style = n.style || {}).labelColor = t.value; });
    else if (t.name === "font") commit((n) => { (n.style = n.style || {}).font = t.value; });
    else if (t.name === "finish") commit((n) => { (n.style = n.style || {}).finish = t.value; });
    else if (t.name === "show") {
      commit((n) => {
        n.layout = n.layout || {};
        const hide = new Set(n.layout.hide || []);
        if (t.checked) hide.delete(t.value); else hide.add(t.value);
        n.layout.hide = [...hide];
      });
    }
  });

  // Texts typed in a field are sent after a short pause, as one undo step.
  const timers = {};
  function typed(key, apply) {
    clearTimeout(timers[key]);
    timers[key] = setTimeout(() => commit(apply), 350);
  }
  form.addEventListener("input", (e) => {
    const t = e.target;
    if (["title", "tagline", "synopsis"].includes(t.name)) {
      typed(t.name, (n) => { if (t.value.trim()) n[t.name] = t.value; else delete n[t.name]; });
    } else if (t.dataset.text !== undefined) {
      const i = Number(t.dataset.text);
      typed("text" + i, (n) => { if (t.value.trim()) n.texts[i].text = t.value; });
    }
  });

  // ---- Lists of texts and decals, rebuilt from the intent.
  function renderLists() {
    const texts = document.getElementById("texts");
    texts.replaceChildren(...(intent.texts || []).map((t, i) => {
      const row = document.createElement("div");
      row.className = "row";
      const label = document.createElement("label");
      label.textContent = `Text ${i + 1} `;
      const input = document.createElement("textarea");
      input.rows = 1;
      input.value = t.text;
      input.dataset.text = String(i);
      label.append(input);
      const remove = button("Remove", () => commit((n) => n.texts.splice(i, 1)));
      row.append(label, remove);
      return row;
    }));
    const decals = document.getElementById("decals");
    decals.replaceChildren(...(intent.decals || []).map((d, i) => {
      const row = document.createElement("div");
      row.className = "row";
      const name = document.createElement("span");
      name.textContent = d.id || d.ref;
      const layer = document.createElement("select");
      layer.setAttribute("aria-label", `Layer of ${d.id || d.ref}`);
      for (const l of layers) layer.add(new Option(l, l, false, l === (d.layer || "over")));
      layer.addEventListener("change", () => commit((n) => { n.decals[i].layer = layer.value; }));
      row.append(name, layer, button("Remove", () => commit((n) => n.decals.splice(i, 1))));
      return row;
    }));
  }

  function button(text, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  document.getElementById("add-text").addEventListener("click", () => {
    commit((n) => { (n.texts = n.texts || []).push({ text: "New text", x: 50, y: 50, size: 4, color: (n.style && n.style.labelColor) || "#ffffff" }); });
  });
  document.getElementById("add-decal").addEventListener("click", () => {
    const choice = document.getElementById("decal-choice").value;
    commit((n) => { (n.decals = n.decals || []).push({ id: choice, x: 50, y: 50, width: 15, layer: "over" }); });
  });

  // ---- Dragging, selecting and resizing on the sheet.
  function svgPoint(svg, e) {
    const p = svg.createSVGPoint();
    p.x = e.clientX;
    p.y = e.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }

  // The resize handle: a square at the selected element's lower right corner; dragging it
  // scales the element (a decal's width, a text's size) by how far it moves.
  const handle = document.createElement("div");
  handle.id = "resize-handle";
  handle.title = "Drag to resize";
  handle.hidden = true;
  sheet.append(handle);

  function markSelected() {
    for (const g of sheet.querySelectorAll(".el.selected")) g.classList.remove("selected");
    if (!handle.isConnected) sheet.append(handle);
    handle.hidden = true;
    if (!selected) return;
    const g = sheet.querySelector(`.el[data-kind="${selected.kind}"][data-i="${selected.i}"]`);
    if (!g) return;
    g.classList.add("selected");
    const box = g.getBoundingClientRect();
    const frame = sheet.getBoundingClientRect();
    handle.style.left = `${box.right - frame.left + sheet.scrollLeft - 6}px`;
    handle.style.top = `${box.bottom - frame.top + sheet.scrollTop - 6}px`;
    handle.hidden = false;
  }

  let sizing = null;
  handle.addEventListener("pointerdown", (e) => {
    if (!selected) return;
    e.preventDefault();
    e.stopPropagation();
    const g = sheet.querySelector(`.el[data-kind="${selected.kind}"][data-i="${selected.i}"]`);
    const box = g.getBoundingClientRect();
    sizing = { x: e.clientX, width: Math.max(box.width, 4) };
    handle.setPointerCapture(e.pointerId);
  });
  handle.addEventListener("pointerup", (e) => {
    if (!sizing) return;
    const factor = clamp((sizing.width + (e.clientX - sizing.x)) / sizing.width, 0.1, 10);
    sizing = null;
    if (Math.abs(factor - 1) > 0.01) resize(factor);
  });

  let drag = null;
  sheet.addEventListener("pointerdown", (e) => {
    if (mode === "readonly") return;
    const g = e.target.closest && e.target.closest(".el");
    const svg = sheet.querySelector("svg");
    if (!g || !svg) {
      selected = null;
      markSelected();
      return;
    }
    e.preventDefault();
    selected = { kind: g.dataset.kind, i: Number(g.dataset.i) };
    markSelected();
    drag = { g, svg, start: svgPoint(svg, e), moved: false };
    sheet.setPointerCapture(e.pointerId);
  });
  sheet.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const p = svgPoint(drag.svg, e);
    const dx = p.x - drag.start.x;
    const dy = p.y - drag.start.y;
    drag.moved = drag.moved || Math.abs(dx) + Math.abs(dy) > 1;
    drag.g.setAttribute("transform", `translate(${dx} ${dy})`);
  });
  sheet.addEventListener("pointerup", (e) => {
    if (!drag) return;
    const { svg, start, moved } = drag;
    drag = null;
    if (!moved) return;
    const p = svgPoint(svg, e);
    const w = Number(svg.dataset.trimWidth);
    const h = Number(svg.dataset.trimHeight);
    const dx = ((p.x - start.x) / w) * 100;
    const dy = ((p.y - start.y) / h) * 100;
    const { kind, i } = selected;
    commit((n) => {
      const el = kind === "text" ? n.texts[i] : n.decals[i];
      el.x = round(clamp((el.x ?? 50) + dx, 0, 100));
      el.y = round(clamp((el.y ?? 50) + dy, 0, 100));
    });
  });

  function resize(factor) {
    if (!selected) return;
    const { kind, i } = selected;
    commit((n) => {
      if (kind === "text") n.texts[i].size = round(clamp((n.texts[i].size || 4) * factor, 0.5, 50));
      else n.decals[i].width = round(clamp((n.decals[i].width || 15) * factor, 1, 100));
    });
  }

  document.addEventListener("keydown", (e) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement && document.activeElement.tagName);
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z" && !typing) {
      e.preventDefault();
      step(e.shiftKey ? redo : undo, e.shiftKey ? undo : redo);
    } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "y" && !typing) {
      e.preventDefault();
      step(redo, undo);
    } else if (!typing && selected && (e.key === "+" || e.key === "=")) resize(1.15);
    else if (!typing && selected && (e.key === "-" || e.key === "−")) resize(1 / 1.15);
    else if (!typing && selected && (e.key === "Delete" || e.key === "Backspace")) {
      const { kind, i } = selected;
      selected = null;
      commit((n) => (kind === "text" ? n.texts : n.decals).splice(i, 1));
    }
  });

  // ---- The account: save a composed design, export a saved one.
  const saveButton = document.getElementById("save");
  if (saveButton) {
    saveButton.addEventListener("click", async () => {
      saveButton.disabled = true;
      await sending; // the last edit first
      say("Saving to your account…");
      try {
        const name = document.getElementById("save-name").value;
        const r = await fetch(`/design/${id}/save`, { method: "POST", headers: jsonHeaders, body: JSON.stringify({ name }) });
        const answer = await r.json();
        if (r.status === 201) {
          location.assign(`/design/${answer.designId}`);
          return;
        }
        say(answer.detail || "The design was not saved.");
      } catch (e) {
        say("Not saved: " + e);
      }
      saveButton.disabled = false;
    });
  }

  const exportButton = document.getElementById("export-start");
  if (exportButton) {
    const exportStatus = document.getElementById("export-status");
    const exportFile = document.getElementById("export-file");
    const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
    exportButton.addEventListener("click", async () => {
      exportButton.disabled = true;
      exportFile.hidden = true;
      await sending;
      const output = document.getElementById("export-output").value;
      const paper = document.getElementById("export-paper").value;
      const body = output === "pdf" ? { output, paper } : { output };
      try {
        const r = await fetch(`/design/${id}/export`, { method: "POST", headers: jsonHeaders, body: JSON.stringify(body) });
        let job = await r.json();
        if (r.status !== 202) {
          exportStatus.textContent = job.detail || "The export was refused.";
        } else {
          const statusUrl = job.statusUrl;
          exportStatus.textContent = "Queued…";
          for (let waited = 0; waited < 600; waited++) {
            await sleep(500);
            job = await (await fetch(statusUrl, { cache: "no-store" })).json();
            if (job.status === "running") exportStatus.textContent = "Rendering…";
            if (!["queued", "running"].includes(job.status)) break;
          }
          if (job.status === "done") {
            exportFile.href = job.file.url;
            exportFile.textContent = `Download the ${job.output.toUpperCase()} (${Math.max(1, Math.round(job.file.bytes / 1024))} KB)`;
            exportFile.hidden = false;
            exportStatus.textContent = "Done.";
          } else {
            exportStatus.textContent = job.status === "failed" ? "The export failed: " + (job.error ? job.error.message : "") : "The export is " + job.status + ".";
          }
        }
      } catch (e) {
        exportStatus.textContent = "The export did not start: " + e;
      }
      exportButton.disabled = false;
    });
  }

  fillForm();
  renderLists();
  if (mode === "readonly") {
    for (const el of form.querySelectorAll("input, select, textarea, button")) el.disabled = true;
  }
  main.classList.add("ready");
})();
