// Browser checks of sign-in and the signed-in designer, run by tests/covers_browser.rs: headless
// Chromium from Debian (`/usr/bin/chromium`) driven by npm `playwright-core`.
// Usage: node account.mjs CONFIG.json
//   CONFIG: { base, tools, email, password, otherDesign, shortBase, loginLink }
// `shortBase` is a second server whose sessions last 3 seconds; `loginLink` is a one-time link
// of an account there. Prints one line per check; exits 1 on the first failure.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(config.tools + "/package.json");
const { chromium } = require("playwright-core");
const { base } = config;

function check(cond, what) {
  if (!cond) throw new Error("FAILED: " + what);
  console.log("ok - " + what);
}
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const sessionCookie = async () => (await context.cookies(base)).find((c) => c.name === "covers_session");

  // ---- CSRF on the sign-in form: a post without the form's token signs nobody in.
  let response = await page.goto(base + "/signin");
  check(response.status() === 200 && (await page.locator("input[name=csrf]").count()) === 1, "the sign-in form carries a CSRF token");
  // (Sent with the browser's cookies, so only the form's token is wrong.)
  const forged = (await page.request.post(base + "/signin", {
    form: { email: config.email, password: config.password, csrf: "x".repeat(43) },
    maxRedirects: 0,
  })).status();
  check(forged === 403 && !(await sessionCookie()), `a sign-in post with a wrong token is refused (${forged}) and starts no session`);

  // ---- A composed design offers sign-in, which comes back to it.
  response = await page.goto(base + "/api/compose?format=dvd-cover&q=Metropolis%201927");
  await page.waitForSelector("#designer.ready");
  const composedPath = new URL(page.url()).pathname;
  check((await page.locator("#designer").getAttribute("data-mode")) === "composed", "a composed design opens in the designer");
  check((await page.locator("#save").count()) === 0 && (await page.locator("#signin").count()) === 1, "signed out, the designer offers sign-in instead of saving");
  await page.locator("#signin").click();
  await page.waitForURL(/\/signin\?next=/);
  await page.locator("input[name=email]").fill(config.email);
  await page.locator("input[name=password]").fill("wrong password!!");
  await page.locator("form button").click();
  check((await page.locator("body").textContent()).includes("Wrong e-mail or password") && !(await sessionCookie()), "a wrong password is refused");
  await page.goto(base + "/signin?next=" + encodeURIComponent(composedPath));
  await page.locator("input[name=email]").fill(config.email);
  await page.locator("input[name=password]").fill(config.password);
  await page.locator("form button").click();
  await page.waitForURL((u) => u.pathname === composedPath);
  await page.waitForSelector("#designer.ready");
  check(true, "signing in returns to the design it started from");
  const cookie = await sessionCookie();
  check(cookie && cookie.httpOnly && cookie.sameSite === "Lax", "the session cookie is HttpOnly and SameSite=Lax");
  check((await page.evaluate(() => document.cookie)).indexOf("covers_session") < 0, "scripts cannot read the session cookie");

  // ---- Edit, then save to the account: the saved design is the edited one.
  const saved = async (before) => {
    await page.waitForFunction((v) => Number(document.getElementById("designer").dataset.version || 0) > v, before, { timeout: 15000 });
    return Number(await page.locator("#designer").getAttribute("data-version"));
  };
  await page.locator('input[name="background"]').evaluate((n) => { n.value = "#204060"; n.dispatchEvent(new Event("change", { bubbles: true })); });
  await saved(0);
  await page.locator("#save-name").fill("My Metropolis");
  await page.locator("#save").click();
  await page.waitForURL(/\/design\/des_/);
  await page.waitForSelector("#designer.ready");
  const savedPath = new URL(page.url()).pathname;
  const savedId = savedPath.split("/").pop();
  check((await page.locator("#designer").getAttribute("data-mode")) === "owner", "saving opens the saved design, editable by its owner");
  check((await page.locator("header").textContent()).includes("My Metropolis"), "the page names the saved design");
  const preview = async () => (await page.request.get(`${base}/design/${savedId}/preview.svg`)).text();
  check((await preview()).includes('fill="#204060"'), "the saved design keeps the edit made before saving");
  await page.goto(base + "/account");
  check((await page.locator("table").first().textContent()).includes("My Metropolis"), "the account page lists the saved design");

  // ---- The owner edits the saved design; the edit is kept.
  await page.goto(base + savedPath);
  await page.waitForSelector("#designer.ready");
  await page.locator('input[name="labelColor"]').evaluate((n) => { n.value = "#ffcc00"; n.dispatchEvent(new Event("change", { bubbles: true })); });
  await saved(0);
  check((await page.locator("#status").textContent()).startsWith("Saved"), "an edit of a saved design is saved");
  check((await preview()).includes("#ffcc00"), "the saved design shows the owner's edit");

  // ---- Without the session's CSRF token, the same edit is refused and nothing changes.
  const withoutToken = await page.evaluate(async (id) => {
    const intent = JSON.parse(document.getElementById("intent").textContent);
    intent.style = { ...(intent.style || {}), labelColor: "#00ff00" };
    const r = await fetch(`/design/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(intent) });
    return { status: r.status, code: (await r.json()).code };
  }, savedId);
  check(withoutToken.status === 403 && withoutToken.code === "CSRF_INVALID", `an edit without the CSRF token is refused (${withoutToken.status} ${withoutToken.code})`);
  check(!(await preview()).includes("#00ff00"), "the refused edit changed nothing");

  // ---- Exports from the page: PNG, then PDF on A4.
  const exportAs = async (output, paper) => {
    await page.locator("#export-output").selectOption(output);
    if (paper) await page.locator("#export-paper").selectOption(paper);
    await page.locator("#export-start").click();
    await page.waitForSelector("#export-file:not([hidden])", { timeout: 120000 });
    const href = await page.locator("#export-file").getAttribute("href");
    const file = await page.request.get(href);
    return { href, type: file.headers()["content-type"], body: await file.body() };
  };
  const png = await exportAs("png");
  check(png.type === "image/png" && png.body.subarray(1, 4).toString() === "PNG", `the page exports a PNG and links it (${png.body.length} bytes)`);
  check(/sig=/.test(png.href) && /expires=/.test(png.href), "the download link is signed and expires");
  const pdf = await exportAs("pdf", "a4");
  check(pdf.type === "application/pdf" && pdf.body.subarray(0, 5).toString() === "%PDF-", `the page exports a PDF on A4 (${pdf.body.length} bytes)`);
  check((await page.locator("#export-status").textContent()) === "Done.", "the export status reads done");

  // ---- Another account's saved design is read-only.
  await page.goto(base + "/design/" + config.otherDesign);
  await page.waitForSelector("#designer.ready");
  check((await page.locator("#designer").getAttribute("data-mode")) === "readonly", "another account's design opens read-only");
  check(await page.locator('input[name="background"]').isDisabled(), "its controls are disabled");
  check((await page.locator("#export-start").count()) === 0 && (await page.locator("#save").count()) === 0, "it offers neither saving nor exporting");
  const puts = [];
  page.on("request", (r) => { if (r.method() === "PUT") puts.push(r.url()); });
  const el = await page.locator('#sheet .el[data-kind="text"]').first().boundingBox();
  await page.mouse.move(el.x + el.width / 2, el.y + el.height / 2);
  await page.mouse.down();
  await page.mouse.move(el.x + el.width / 2 + 80, el.y + el.height / 2 + 40, { steps: 4 });
  await page.mouse.up();
  await sleep(500);
  check(puts.length === 0, "dragging on a read-only design sends nothing");

  // ---- Sign-out ends the session on the server, not only in the browser.
  const stale = await sessionCookie();
  await page.goto(base + "/account");
  await page.locator("form[action='/signout'] button").click();
  await page.waitForURL(/\/signin/);
  check(!(await sessionCookie()), "signing out removes the session cookie");
  await context.addCookies([{ ...stale, expires: -1 }]);
  response = await page.goto(base + "/account");
  check(new URL(page.url()).pathname === "/signin", "the old session cookie no longer signs in");
  check(errors.length === 0, "no script errors: " + errors.join(" | "));

  // ---- Session expiry (3-second sessions): the one-time link signs in once; later the
  // session is refused by the server even when the browser still sends the cookie.
  const short = await browser.newContext();
  const p2 = await short.newPage();
  await p2.goto(config.shortBase + config.loginLink);
  check(new URL(p2.url()).pathname === "/account", "the one-time link signs in");
  const shortCookie = (await short.cookies(config.shortBase)).find((c) => c.name === "covers_session");
  const again = await p2.goto(config.shortBase + config.loginLink);
  check(again.status() === 400, "the one-time link works only once");
  await sleep(4000);
  await p2.goto(config.shortBase + "/account");
  check(new URL(p2.url()).pathname === "/signin", "after the session's lifetime the account page asks for sign-in");
  await short.addCookies([{ ...shortCookie, expires: -1 }]);
  await p2.goto(config.shortBase + "/account");
  check(new URL(p2.url()).pathname === "/signin", "the expired session's cookie is refused by the server");
  const lateResponse = await p2.request.post(config.shortBase + "/design/none/save", {
    headers: { "content-type": "application/json", "x-csrf-token": "t" },
    data: "{}",
  });
  const late = { status: lateResponse.status(), code: (await lateResponse.json()).code };
  check(late.status === 401 && late.code === "SIGN_IN_REQUIRED", `a designer action with an expired session asks for sign-in (${late.status} ${late.code})`);
} finally {
  await browser.close();
}
