// Browser checks of the public pages, run by tests/browser.rs: headless Chromium from Debian
// (`/usr/bin/chromium`) driven by npm `playwright-core`, with npm `axe-core` for accessibility.
// Usage: node player.mjs CONFIG.json   (CONFIG: { base, tools, screenshots?, puzzles: {...} })
// Prints one line per check; exits 1 on the first failure.
import { createRequire } from "node:module";
import { readFileSync, mkdirSync } from "node:fs";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(config.tools + "/package.json");
const { chromium } = require("playwright-core");
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const { base, puzzles } = config;

function check(cond, what) {
  if (!cond) throw new Error("FAILED: " + what);
  console.log("ok - " + what);
}

const browser = await chromium.launch({ executablePath: config.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  let dialogs = 0;
  page.on("dialog", async (d) => { dialogs++; await d.dismiss(); });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  // ---- English: type the answers, see the solved state; progress survives a reload.
  const en = puzzles.en;
  let response = await page.goto(`${base}/p/${en.id}`);
  const csp = response.headers()["content-security-policy"] || "";
  check(csp.includes("script-src 'self'") && !csp.includes("unsafe-inline") && csp.includes("frame-ancestors 'none'"), "the page sends a strict CSP");
  check(response.headers()["x-content-type-options"] === "nosniff" && !!response.headers()["referrer-policy"], "nosniff and Referrer-Policy");
  await page.waitForSelector("#player.ready");
  const cell = (i) => page.locator(`.cell[data-i="${i}"]`);
  const val = async (i) => (await cell(i).locator(".val").textContent()) || "";
  await cell(0).click();
  await page.keyboard.type("cat");
  check((await val(0)) + (await val(1)) + (await val(2)) === "CAT", "typed letters appear upper-cased in 1-across");
  await page.keyboard.press("Tab");
  check((await page.locator("#current-clue").textContent()).includes("Poem"), "Tab moves to the next entry and shows its clue");
  await page.keyboard.type("ODX");
  // Check the letter (the cursor stays on the entry's last cell): the wrong one is marked.
  await page.locator(".menu > button", { hasText: "Check" }).click();
  await page.locator("[data-action='check:letter']").click();
  check(await cell(5).evaluate((n) => n.classList.contains("wrong")), "check letter marks a wrong letter");
  await page.reload();
  await page.waitForSelector("#player.ready");
  check((await val(0)) + (await val(4)) + (await val(5)) === "CDX", "progress survives a reload");
  // Reveal the word, then type the rest.
  await cell(3).click();
  if (!(await page.locator("#current-clue").textContent()).includes("Poem")) await cell(3).click();
  await page.locator(".menu > button", { hasText: "Reveal" }).click();
  await page.locator("[data-action='reveal:word']").click();
  check((await val(5)) === "E" && (await cell(5).evaluate((n) => n.classList.contains("revealed"))), "reveal word fills and marks the word");
  await cell(6).click();
  if (!(await page.locator("#current-clue").textContent()).includes("Damp")) await cell(6).click();
  await page.keyboard.type("wet");
  await page.waitForSelector("#solved:not([hidden])");
  check(/Solved in \d+:\d\d/.test(await page.locator("#solved").textContent()), "the solved moment shows the time");
  check(errors.length === 0, "no script errors on the English page: " + errors.join("; "));

  // ---- Accessibility: axe-core finds no serious or critical violation.
  const axeContext = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  const axePage = await axeContext.newPage();
  await axePage.goto(`${base}/p/${en.id}`);
  await axePage.waitForSelector("#player.ready");
  await axePage.evaluate(axeSource);
  const results = await axePage.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  check(serious.length === 0, "axe-core: no serious violation" + (serious.length ? ": " + JSON.stringify(serious.map((v) => [v.id, v.nodes.length])) : ""));
  // Keyboard only: focus reaches the grid with Tab from the top, and the cells have names.
  const named = await page.locator(".cell:not(.block)").evaluateAll((ns) => ns.every((n) => (n.getAttribute("aria-label") || "").length > 5));
  check(named, "every white cell has a screen-reader name");

  // Keyboard alone: Tab from the top of the page reaches the grid, typing fills it, Escape leaves.
  const kbCtx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const kp = await kbCtx.newPage();
  await kp.goto(`${base}/p/${en.id}`);
  await kp.waitForSelector("#player.ready");
  await kp.evaluate(() => localStorage.clear());
  await kp.reload();
  await kp.waitForSelector("#player.ready");
  let reached = false;
  for (let k = 0; k < 20 && !reached; k++) {
    await kp.keyboard.press("Tab");
    reached = await kp.evaluate(() => document.activeElement && document.activeElement.id === "sink");
  }
  check(reached, "Tab from the top of the page reaches the grid");
  await kp.keyboard.type("cat");
  const row = await kp.evaluate(() => [0, 1, 2].map((i) => document.querySelector(`.cell[data-i="${i}"] .val`).textContent).join(""));
  check(row === "CAT", "the keyboard alone fills the grid");
  await kp.keyboard.press("Escape");
  check(await kp.evaluate(() => document.activeElement && document.activeElement.id === "pause"), "Escape leaves the grid for the tools");
  await kbCtx.close();

  // ---- Hebrew: mirrored display, arrows follow what the solver sees.
  const he = puzzles.he;
  await page.goto(`${base}/p/${he.id}`);
  await page.waitForSelector("#player.ready");
  check((await page.getAttribute("html", "dir")) === "rtl", "Hebrew page is right to left");
  const x0 = (await cell(0).boundingBox()).x, x1 = (await cell(1).boundingBox()).x;
  check(x0 > x1, "the first logical column is drawn on the right");
  await cell(0).click();
  if (!(await page.locator("#current-clue").textContent()).includes(he.across1)) await cell(0).click();
  await page.keyboard.press("ArrowLeft");
  check(await cell(1).evaluate((n) => n.classList.contains("active")), "ArrowLeft moves to the cell on the left (the next logical column)");
  await cell(0).click();
  if (!(await page.locator("#current-clue").textContent()).includes(he.across1)) await cell(0).click();
  for (let k = 0; k < he.rows.length; k++) {
    if (k > 0) await page.keyboard.press("Tab");
    await page.keyboard.type(he.rows[k]);
  }
  await page.waitForSelector("#solved:not([hidden])");
  check(true, "the Hebrew puzzle is solved by typing its rows");

  // ---- Japanese criss-cross: hiragana typed, katakana shown; only white cells drawn.
  const ja = puzzles.ja;
  await page.goto(`${base}/p/${ja.id}`);
  await page.waitForSelector("#player.ready");
  const blockVisible = await page.locator(".cell.block").first().evaluate((n) => getComputedStyle(n).visibility);
  check(blockVisible === "hidden", "criss-cross grids show only their white cells");
  await cell(ja.start).click();
  await page.keyboard.type(ja.typed);
  const shown = [];
  for (const i of ja.cells) shown.push(await val(i));
  check(shown.join("") === ja.expected, `hiragana ${ja.typed} is shown as katakana ${shown.join("")}`);

  // ---- Hindi: a cell holds a whole akshara, typed letter by letter.
  const hi = puzzles.hi;
  await page.goto(`${base}/p/${hi.id}`);
  await page.waitForSelector("#player.ready");
  await cell(0).click();
  await page.keyboard.type(hi.typed);
  const aksharas = [];
  for (const i of hi.cells) aksharas.push(await val(i));
  check(JSON.stringify(aksharas) === JSON.stringify(hi.expected), `Hindi ${hi.typed} fills the cells ${aksharas.join(" | ")}`);

  // ---- Print: the grid and clues without the tools; letters only with the solution.
  await page.goto(`${base}/p/${en.id}`);
  await page.waitForSelector("#player.ready");
  await page.emulateMedia({ media: "print" });
  const printed = await page.evaluate(() => ({
    toolbar: getComputedStyle(document.querySelector(".toolbar")).display,
    letters: getComputedStyle(document.querySelector(".cell:not(.block) .val")).visibility,
    clues: getComputedStyle(document.querySelector(".clues")).display,
  }));
  check(printed.toolbar === "none" && printed.letters === "hidden" && printed.clues !== "none", "print shows the blank grid and the clues, not the tools");
  await page.emulateMedia({ media: "screen" });

  // ---- Touch screens get an on-screen keyboard in the puzzle's alphabet.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const tp = await phone.newPage();
  await tp.goto(`${base}/p/${puzzles.ru.id}`);
  await tp.waitForSelector("#player.ready");
  const keys = await tp.locator("#keyboard button").allTextContents();
  check(!(await tp.locator("#keyboard").isHidden()) && keys.includes("Ж") && keys.includes("Я") && !keys.includes("Ё"), "a Cyrillic on-screen keyboard (" + keys.length + " keys)");
  await tp.locator('.cell[data-i="0"]').tap();
  await tp.locator("#keyboard button", { hasText: /^К$/ }).tap();
  check((await tp.locator('.cell[data-i="0"] .val').textContent()) === "К", "a tapped key fills the cell");
  await phone.close();

  // ---- Adult themes: an age check on the page; the embed refuses.
  const adult = puzzles.adult;
  await page.goto(`${base}/p/${adult.id}`);
  await page.waitForSelector("#player.ready");
  check(await page.locator("#gate").isVisible() && !(await page.locator(".board").isVisible()), "an adult puzzle asks for the age check first");
  await page.locator("#gate-ok").click();
  check(await page.locator(".board").isVisible(), "the board shows after the age check");
  response = await page.goto(`${base}/embed/${adult.id}`);
  check(response.status() === 403 && (await page.content()).includes("not shown in embedded frames"), "the adult puzzle's embed refuses to load");

  // ---- A hostile title is text.
  const hostile = puzzles.hostile;
  await page.goto(`${base}/p/${hostile.id}`);
  await page.waitForSelector("#player.ready");
  check((await page.locator("h1").textContent()) === "<script>alert(1)</script>", "a hostile title is rendered as text");
  check(dialogs === 0, "no dialog opened");

  // ---- The embed posts ready, resize, progress and solved to its host.
  // The host page is served by a small local server of its own (another origin).
  // The host page uses embed.js (sizing and the scheme answer, from data-scheme) and records
  // every message it sees.
  const hostHtml = `<!DOCTYPE html><html><body><iframe id="f" src="${base}/embed/${en.id}?scheme=auto" data-scheme="dark" style="width:600px;height:300px;border:0"></iframe>
<script src="${base}/assets/embed.js"></script>
<script>window.msgs=[];addEventListener("message",function(e){window.msgs.push(e.data);});</script></body></html>`;
  const http = require("node:http");
  const hostServer = http.createServer((req, res) => { res.writeHead(200, { "content-type": "text/html" }); res.end(hostHtml); });
  await new Promise((r) => hostServer.listen(0, "127.0.0.1", r));
  const host = await context.newPage();
  await host.goto(`http://127.0.0.1:${hostServer.address().port}/`);
  const frame = host.frameLocator("#f");
  await frame.locator("#player.ready").waitFor();
  await host.waitForFunction(() => window.msgs.some((m) => m.event === "ready") && window.msgs.some((m) => m.event === "resize"));
  const dark = await frame.locator("html").evaluate((n) => n.classList.contains("scheme-dark"));
  check(dark, "the frame takes the scheme its host answers");
  await frame.locator("[data-action='clear']").click();
  await frame.locator(`.cell[data-i="0"]`).click();
  await host.keyboard.type("cat");
  await host.waitForFunction(() => window.msgs.some((m) => m.event === "progress" && m.filled === 3));
  await frame.locator(".menu > button", { hasText: "Reveal" }).click();
  await frame.locator("[data-action='reveal:grid']").click();
  await host.waitForFunction(() => window.msgs.some((m) => m.event === "solved"));
  const msgs = await host.evaluate(() => window.msgs);
  check(msgs.every((m) => m.type === "crossword-embed" && m.id === en.id), "every message is a crossword-embed message with the puzzle id");
  const resize = msgs.find((m) => m.event === "resize");
  check(resize && resize.height > 200, "resize reports the frame's height (" + (resize && resize.height) + ")");
  const frameHeight = await host.evaluate(() => document.getElementById("f").getBoundingClientRect().height);
  const lastResize = msgs.filter((m) => m.event === "resize").pop();
  check(Math.abs(frameHeight - lastResize.height) <= 1, `embed.js sized the iframe to the frame's height (${frameHeight} px)`);
  const progress = msgs.filter((m) => m.event === "progress");
  check(progress.length > 0 && progress.every((m) => m.total === 9), "progress reports filled and total cells");
  hostServer.close();

  // ---- Screenshots for the README (desktop and phone, light and dark; the showcase).
  if (config.screenshots) {
    mkdirSync(config.screenshots, { recursive: true });
    for (const [name, viewport, colorScheme] of [
      ["puzzle-desktop-light", { width: 1280, height: 860 }, "light"],
      ["puzzle-desktop-dark", { width: 1280, height: 860 }, "dark"],
      ["puzzle-phone-light", { width: 390, height: 844 }, "light"],
      ["puzzle-phone-dark", { width: 390, height: 844 }, "dark"],
    ]) {
      const ctx = await browser.newContext({ viewport, colorScheme, deviceScaleFactor: 1, hasTouch: viewport.width < 500, isMobile: viewport.width < 500 });
      const p = await ctx.newPage();
      await p.goto(`${base}/p/${puzzles.shot.id}`);
      await p.waitForSelector("#player.ready");
      await p.locator(`.cell[data-i="${puzzles.shot.start}"]`).click();
      await p.keyboard.type(puzzles.shot.typed);
      await p.screenshot({ path: `${config.screenshots}/${name}.png` });
      await ctx.close();
    }
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const p = await ctx.newPage();
    await p.goto(`${base}/showcase`);
    await p.screenshot({ path: `${config.screenshots}/showcase.png` });
    await ctx.close();
    console.log("ok - screenshots written");
  }
} catch (e) {
  console.error(String(e && e.stack || e));
  process.exitCode = 1;
} finally {
  await browser.close();
}
