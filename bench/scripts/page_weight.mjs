// Page weight and first paint of a puzzle page in headless Chromium (Debian) with a slow-phone
// profile: 4x CPU slowdown and "slow 4G" (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up),
// a 390x844 touch viewport, an empty cache. Usage: node page_weight.mjs TOOLS_DIR URL [RUNS]
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";

const [tools, url, runsArg] = process.argv.slice(2);
const require = createRequire(tools + "/package.json");
const { chromium } = require("playwright-core");
const runs = Number(runsArg || 5);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const results = [];
let weights = null;
for (let k = 0; k < runs; k++) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const bodies = [];
  let transferred = 0;
  cdp.on("Network.loadingFinished", (e) => { transferred += e.encodedDataLength; });
  page.on("response", async (r) => { try { bodies.push({ url: r.url(), body: await r.body() }); } catch (e) { } });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#player.ready");
  const timing = await page.evaluate(() => {
    const paint = Object.fromEntries(performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
    const nav = performance.getEntriesByType("navigation")[0];
    return { fp: paint["first-paint"], fcp: paint["first-contentful-paint"], load: nav.loadEventEnd, dcl: nav.domContentLoadedEventEnd };
  });
  timing.transferred = transferred;
  results.push(timing);
  if (!weights) {
    const pick = (re) => bodies.filter((b) => re.test(b.url));
    const size = (list) => list.reduce((s, b) => s + b.body.length, 0);
    const gz = (list) => list.reduce((s, b) => s + gzipSync(b.body, { level: 9 }).length, 0);
    const core = [...pick(/\/p\/[a-z0-9]{8}$/), ...pick(/player\.(js|css)/)];
    weights = { html_js_css: size(core), html_js_css_gzip: gz(core), all: size(bodies), requests: bodies.length };
  }
  await context.close();
}
await browser.close();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log(JSON.stringify({
  runs,
  first_paint_ms: Math.round(median(results.map((r) => r.fp))),
  first_contentful_paint_ms: Math.round(median(results.map((r) => r.fcp))),
  dom_content_loaded_ms: Math.round(median(results.map((r) => r.dcl))),
  load_ms: Math.round(median(results.map((r) => r.load))),
  transferred_bytes: median(results.map((r) => r.transferred)),
  ...weights,
}, null, 1));
