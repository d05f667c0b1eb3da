// Browser checks of the cover designer, run by tests/covers_browser.rs: headless Chromium from
// Debian (`/usr/bin/chromium`) driven by npm `playwright-core`, with npm `axe-core`.
// Usage: node designer.mjs CONFIG.json   (CONFIG: { base, tools, link, design, screenshot? })
// Prints one line per check; exits 1 on the first failure.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(config.tools + "/package.json");
const { chromium } = require("playwright-core");
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const { base } = config;

function check(cond, what) {
  if (!cond) throw new Error("FAILED: " + what);
  console.log("ok - " + what);
}

const server = async (path) => {
  const r = await fetch(base + path);
  return { status: r.status, type: r.headers.get("content-type"), body: Buffer.from(await r.arrayBuffer()) };
};

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });

  // ---- A compose link opens the designer, populated.
  let response = await page.goto(base + config.link);
  check(response.status() === 200 && page.url().includes("/design/"), "the compose link lands on the designer");
  const csp = response.headers()["content-security-policy"] || "";
  check(csp.includes("script-src 'self'") && !/script-src[^;]*unsafe-inline/.test(csp), "the designer sends a strict script policy");
  await page.waitForSelector("#designer.ready");
  check((await page.locator("#sheet svg").innerHTML()).includes("Nosferatu"), "the sheet shows the title found by the link");
  check((await page.locator("h1").textContent()).includes("Nosferatu (1922)"), "the heading names the title");

  // ---- The design with a decal and a text.
  await page.goto(base + config.design);
  await page.waitForSelector("#designer.ready");
  const id = config.design.split("/").pop();
  const saved = async (before) => {
    await page.waitForFunction((v) => Number(document.getElementById("designer").dataset.version || 0) > v, before, { timeout: 15000 });
    return Number(await page.locator("#designer").getAttribute("data-version"));
  };
  let version = 0;
  const preview = async () => (await server(`/design/${id}/preview.svg`)).body.toString();
  const decal = page.locator('#sheet .el[data-kind="decal"][data-i="0"]');
  const before = await decal.boundingBox();
  const svgBefore = await preview();
  // Drag the decal 120 px right and 60 px down.
  await page.mouse.move(before.x + before.width / 2, before.y + before.height / 2);
  await page.mouse.down();
  await page.mouse.move(before.x + before.width / 2 + 60, before.y + before.height / 2 + 30, { steps: 4 });
  await page.mouse.move(before.x + before.width / 2 + 120, before.y + before.height / 2 + 60, { steps: 4 });
  await page.mouse.up();
  version = await saved(version);
  const after = await page.locator('#sheet .el[data-kind="decal"][data-i="0"]').boundingBox();
  check(after.x > before.x + 80 && after.y > before.y + 30, `dragging moves the decal (${Math.round(before.x)},${Math.round(before.y)} → ${Math.round(after.x)},${Math.round(after.y)})`);
  const svgAfter = await preview();
  check(svgAfter !== svgBefore, "the server's preview follows the drag");

  // Select it and make it larger with "+".
  await page.locator('#sheet .el[data-kind="decal"][data-i="0"]').click();
  await page.keyboard.press("+");
  version = await saved(version);
  const larger = await page.locator('#sheet .el[data-kind="decal"][data-i="0"]').boundingBox();
  check(larger.width > after.width * 1.05, "+ makes the selected decal larger");

  // Or drag its handle 40 px to the right.
  const handle = await page.locator("#resize-handle").boundingBox();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2 + 40, handle.y + handle.height / 2, { steps: 4 });
  await page.mouse.up();
  version = await saved(version);
  const dragged = await page.locator('#sheet .el[data-kind="decal"][data-i="0"]').boundingBox();
  check(dragged.width > larger.width * 1.2, `dragging the handle resizes the decal (${Math.round(larger.width)} → ${Math.round(dragged.width)} px)`);

  // Edit a text: the preview shows it.
  await page.locator('textarea[data-text="0"]').fill("Director's cut");
  version = await saved(version);
  check((await page.locator("#sheet svg").innerHTML()).includes("Director"), "the sheet shows the edited text");
  check((await preview()).includes("Director&#39;s cut"), "the server keeps the edited text");

  // Undo brings the old text back; redo reapplies it.
  await page.locator("#undo").click();
  version = await saved(version);
  check((await preview()).includes("Restored") && !(await preview()).includes("Director"), "undo restores the previous text");
  await page.locator("#redo").click();
  version = await saved(version);
  check((await preview()).includes("Director&#39;s cut"), "redo reapplies it");

  // Colours, finish and hidden fields.
  await page.locator('input[name="background"]').evaluate((n) => { n.value = "#336699"; n.dispatchEvent(new Event("change", { bubbles: true })); });
  version = await saved(version);
  check((await preview()).includes('fill="#336699"'), "the background colour changes");
  await page.locator('select[name="finish"]').selectOption("plain");
  version = await saved(version);
  check(!(await preview()).includes("finish-worn"), "the finish changes to plain");
  const titles = (s) => (s.match(/>Metropolis</g) || []).length;
  const shownTitles = titles(await preview());
  await page.locator('input[name="show"][value="title"]').uncheck();
  version = await saved(version);
  check(titles(await preview()) === shownTitles - 1, "hiding the title removes it from the front");
  // A decal from the catalogue, and its layer.
  await page.locator("#decal-choice").selectOption("badges/stereo");
  await page.locator("#add-decal").click();
  version = await saved(version);
  check((await page.locator('#sheet .el[data-kind="decal"]').count()) === 2, "a catalogue decal is added");
  check(errors.length === 0, "no script errors: " + errors.join(" | "));

  // ---- The downloaded preview is the server's render.
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download").click()]);
  const file = readFileSync(await download.path());
  const png = await server(`/design/${id}/preview.png`);
  check(png.type === "image/png" && file.subarray(1, 4).toString() === "PNG", "the download is a PNG");
  check(Buffer.compare(file, png.body) === 0, `the downloaded preview matches the server's render (${file.length} bytes)`);

  // ---- Accessibility: no critical or serious problems (axe runs in a context that bypasses the
  // page's script policy, which would rightly refuse it).
  const axeContext = await browser.newContext({ bypassCSP: true, viewport: { width: 1400, height: 900 } });
  const axePage = await axeContext.newPage();
  await axePage.goto(base + config.design);
  await axePage.waitForSelector("#designer.ready");
  await axePage.evaluate(axeSource);
  const axe = await axePage.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = axe.violations.filter((v) => v.impact === "critical" || v.impact === "serious");
  check(bad.length === 0, "axe finds no critical or serious problems: " + bad.map((v) => v.id + " " + v.nodes.map((n) => n.target.join(" ")).join("; ")).join(", "));

  if (config.screenshot) await page.screenshot({ path: config.screenshot, fullPage: false });
} finally {
  await browser.close();
}
