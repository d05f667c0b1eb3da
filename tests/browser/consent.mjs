// The person's part of the MCP connector's OAuth sign-in, in headless Chromium (Debian's
// `/usr/bin/chromium`, npm `playwright-core`); run by tests/mcp/connector.py.
// Usage: node consent.mjs CONFIG.json
//   CONFIG: { tools, url, email, password, callback, action: "approve" | "deny" | "disconnect", app? }
// approve/deny: opens the authorization URL, signs in when asked, answers the approval page if
// it is shown, and prints {callback, consentShown, appName, scopes} once the browser reaches the
// app's callback address (never loaded: the test intercepts it).
// disconnect: signs in and disconnects the app named `app` on the account page.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(config.tools + "/package.json");
const { chromium } = require("playwright-core");

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  let callback = null;
  await context.route((url) => url.href.startsWith(config.callback), async (route) => {
    callback = route.request().url();
    await route.fulfill({ status: 200, contentType: "text/plain", body: "back in the app" });
  });
  const signIn = async () => {
    await page.locator("input[name=email]").fill(config.email);
    await page.locator("input[name=password]").fill(config.password);
    await Promise.all([page.waitForLoadState("load"), page.locator("form button").click()]);
  };
  if (config.action === "disconnect") {
    const base = new URL(config.url).origin;
    await page.goto(base + "/signin?next=/account");
    await signIn();
    await page.waitForURL((u) => u.pathname === "/account");
    const row = page.locator("#apps tr", { hasText: config.app });
    const before = await row.count();
    await Promise.all([page.waitForLoadState("load"), row.first().locator("button").click()]);
    const after = await page.locator("#apps tr", { hasText: config.app }).count();
    console.log(JSON.stringify({ before, after }));
  } else {
    await page.goto(config.url);
    if (new URL(page.url()).pathname === "/signin") await signIn();
    let consentShown = false;
    let appName = null;
    let scopes = [];
    // Either the approval page, or (approved before) straight back to the app.
    for (let i = 0; i < 150 && !callback; i++) {
      if (await page.locator("#approve").count()) break;
      await page.waitForTimeout(100);
    }
    if (!callback) {
      await page.waitForSelector("#approve", { timeout: 5000 });
      consentShown = true;
      appName = await page.locator("#app-name").textContent();
      scopes = await page.locator("#scopes strong").allTextContents();
      await page.locator(config.action === "deny" ? "#deny" : "#approve").click();
    }
    for (let i = 0; i < 100 && !callback; i++) await page.waitForTimeout(100);
    console.log(JSON.stringify({ callback, consentShown, appName, scopes }));
  }
} finally {
  await browser.close();
}
