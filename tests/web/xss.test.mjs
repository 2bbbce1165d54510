// Hostile text reaches the page as text: an exercise statement (Markdown, the one place the app
// writes HTML, through DOMPurify), a display name on a leaderboard and an API error's message.
// The static app has no CSP, so an injected handler that got through would run here.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually, openPage, startApp } from "./harness.mjs";

const HOSTILE = `<img src=x onerror="window.__xss = 'ran'">`;
const JSON_TYPE = { "content-type": "application/json" };
let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

/** Whether the page ran the payload, once every image in `scope` has finished (loaded or failed). */
async function ran(page, scope) {
  await eventually(assert.ok, () => page.$$eval(`${scope} img`, (imgs) => imgs.every((i) => i.complete)));
  return page.evaluate(() => window.__xss !== undefined);
}

test("a statement's raw HTML and javascript: links are sanitized, its formulas kept", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, {
    prepare: (p) => p.route("**/catalog.json", async (route) => {
      const catalog = await (await route.fetch()).json();
      const ring = catalog.exercises.find((e) => e.id === "ring-allreduce");
      ring.statement.en = `${HOSTILE}\n\n[a link](javascript:window.__xss='link')\n\n${ring.statement.en}`;
      await route.fulfill({ json: catalog });
    }),
  });
  await eventually(assert.ok, async () => await page.locator("#statement-body .katex").count(), "formulas are rendered");
  assert.equal(await page.locator("#statement-body img[onerror]").count(), 0);
  assert.equal(await page.locator('#statement-body a[href^="javascript:"]').count(), 0);
  assert.match(await page.textContent("#statement-body"), /a link/);
  assert.equal(await ran(page, "#statement-body"), false);
  await page.close();
});

test("an API error's message is shown as text", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, {
    prepare: async (p) => {
      await p.route("**/api/exercises", (route) => route.fulfill({ json: [] })); // a server answers
      await p.route("**/api/auth/login", (route) => route.fulfill({
        status: 401, headers: JSON_TYPE,
        body: JSON.stringify({ code: "hostile", detail: HOSTILE, message_zh: HOSTILE }),
      }));
    },
  });
  await page.click("#login");
  await page.fill("#auth-username", "someone");
  await page.fill("#auth-password", "a long enough password");
  await page.press("#auth-password", "Enter");
  await eventually(assert.equal, async () => await page.textContent("#auth-error"), HOSTILE);
  assert.equal(await page.locator("#auth-error img").count(), 0);
  assert.equal(await ran(page, "body"), false);
  await page.close();
});

test("a display name on a leaderboard is shown as text", async () => {
  const page = await app.browser.newPage();
  await page.route("**/api/**", async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/api/exercises") {
      return route.fulfill({ json: [{ id: "ring-allreduce", title: { en: "Ring", zh: "环" }, track: "bandwidth-optimal" }] });
    }
    if (path === "/api/exercises/ring-allreduce/leaderboard") {
      return route.fulfill({ json: { ranked_by: ["model_time_s"], title: { en: "Ring", zh: "环" }, entries: [
        { rank: 1, name: HOSTILE, anonymous: false, you: false, user_id: null, model_time_s: 0.001,
          bytes_sent: 100, submitted_at: "2026-01-01T00:00:00Z", current_version: true }] } });
    }
    return route.fulfill({ status: 404, headers: JSON_TYPE, body: JSON.stringify({ code: "not_found", detail: "no", message_zh: "无" }) });
  });
  await page.goto(`${app.url}course.html#/leaderboard/ring-allreduce`);
  await eventually(assert.match, async () => (await page.textContent("#leaderboard")) ?? "", /onerror/);
  assert.ok((await page.textContent("#leaderboard")).includes(HOSTILE));
  assert.equal(await page.locator("#leaderboard img").count(), 0);
  assert.equal(await ran(page, "body"), false);
  await page.close();
});
