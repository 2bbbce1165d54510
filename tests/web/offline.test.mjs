// First steps and offline (issue 16, items 10 and 11): Submit for the official verdict after an
// accepted full run, Next after an official accept, the service worker that serves the app and
// Python from its cache by content hash (reload and Stop offline), the practice-mode banner on a
// static host, and a submission interrupted by a reload or an outage followed again.
// The judge server is played by routes here (its own tests are server.test.mjs): these are the
// page's behaviours, and real grading would only cost time.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { VIEWPORT } from "../../web/scripts/chromium.mjs";
import { serve } from "../../web/scripts/serve.mjs";
import { axeViolations, dist, eventually, exerciseFile, runAndWait, setCode, startApp } from "./harness.mjs";

const REFERENCE = exerciseFile("ring-allreduce", "solution.py");
const catalog = JSON.parse(readFileSync(`${dist}/catalog.json`, "utf8"));
const title = (id, lang = "en") => catalog.exercises.find((ex) => ex.id === id).title[lang];
const progressOf = (page, id) => page.getAttribute(`#exercise-list li[data-exercise="${id}"]`, "data-progress");

let app;
before(async () => (app = await startApp()));
after(async () => app?.close());

/** A page in a fresh context (options: e.g. serviceWorkers "block", so that routes see every request). */
async function newPage(url, { context: options = {}, prepare, ready = true } = {}) {
  const context = await app.browser.newContext({ viewport: VIEWPORT, ...options });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  await prepare?.(page);
  await page.goto(url);
  if (ready) await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  return page;
}

/** An official verdict as the judge server returns it (one case is enough for the page). */
const OFFICIAL = {
  verdict: "accepted", message: "all 7 cases passed", message_zh: "全部 7 个测试通过", runtime: "torch",
  cases: [{ name: "sample-4-ranks", world_size: 4, verdict: "accepted", message: "", message_zh: "",
    bytes_sent: [48, 48, 48, 48], bytes_bound: 48, wall_ms: 210 }],
};
/** A submission as GET /api/submissions/{id} answers; while it runs, the official case is its one case so far. */
const submission = (id, status, result = null) => ({
  id, exercise: "ring-allreduce", user_id: 1, status, verdict: result?.verdict ?? null, result,
  cases_so_far: status === "running" ? OFFICIAL.cases : [],
  code: REFERENCE, filename: "ring_allreduce.py", created_at: "2026-01-01T10:00:00", finished_at: null, content_hash: "",
  attempts: 1, started_at: null, queue_ms: null, grading_ms: null,
});

/**
 * The judge's API played by a route: `state.mode` is "up" (answers) or "down" (no connection);
 * `state.status` is what GET /api/submissions/{id} says (queued, running, done). Events are
 * refused, so the page polls.
 */
function fakeServer(state) {
  return async (page) => page.route("**/api/**", async (route) => {
    const request = route.request();
    const path = new URL(request.url()).pathname;
    if (state.mode === "down") return route.abort("connectionrefused");
    const json = (body, status = 200) => route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });
    if (path === "/api/exercises") return json([]);
    if (path === "/api/me/progress") return json([]);
    if (path.startsWith("/api/auth/")) return json({ token: "tok-1", username: "ada" });
    if (path === "/api/submissions" && request.method() === "POST") {
      state.submitted = JSON.parse(request.postData());
      return json({ id: state.id, status: "queued", queue_position: 1 }, 202);
    }
    if (path === "/api/submissions") return json([]);
    if (path.endsWith("/events")) return route.abort("failed");
    if (path === `/api/submissions/${state.id}`) return json(submission(state.id, state.status, state.status === "done" ? OFFICIAL : null));
    return json({ detail: "not found" }, 404);
  });
}

test("static host: a practice-mode banner instead of Submit, history and log in (en, zh); no Submit offered after a full pass", async () => {
  const page = await newPage(`${app.url}#/ring-allreduce`);
  const banner = page.locator("#practice-banner");
  await banner.waitFor();
  await eventually(assert.match, async () => await banner.textContent(), /^Practice mode: there is no judge server here\. Run sample and Run all tests work in your browser/);
  for (const id of ["#submit", "#login", "#course-link"]) await eventually(assert.equal, async () => await page.isVisible(id), false, id);
  await eventually(assert.ok, async () => await page.isVisible("#run-all"));
  // Ctrl+' does nothing here: no dialog
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+'");
  await eventually(assert.equal, async () => await page.isVisible("#auth-dialog"), false);
  await setCode(page, REFERENCE);
  assert.equal((await runAndWait(page, "#run-sample")).verdict, "accepted");
  await eventually(assert.ok, async () => await page.isVisible("#then-run-all"));
  await eventually(assert.equal, async () => await page.locator("#then-submit").count(), 0, "no Submit without a server");
  assert.deepEqual(await axeViolations(page), [], "practice mode (en)");
  await page.click("#lang-toggle");
  await eventually(assert.match, async () => await banner.textContent(), /^练习模式：这里没有评测服务器。/);
  assert.deepEqual(await axeViolations(page), [], "practice mode (zh)");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("after an accepted full run: Submit for the official verdict (logged out: log in, then it submits); after the official accept: Next (en, zh)", async () => {
  const state = { mode: "up", id: 41, status: "done" };
  const page = await newPage(`${app.url}#/ring-allreduce`, { context: { serviceWorkers: "block" }, prepare: fakeServer(state) });
  await eventually(assert.equal, async () => await page.isVisible("#practice-banner"), false, "a server answers: no practice mode");
  await setCode(page, REFERENCE);
  const all = await runAndWait(page, "#run-all", 120_000);
  assert.equal(all.verdict, "accepted");
  await eventually(assert.match, async () => await page.textContent(".next-step"), /Every test passes in your browser/);
  await eventually(assert.equal, async () => await page.textContent("#then-official"), "Submit for the official verdict");
  await page.click("#lang-toggle");
  await eventually(assert.equal, async () => await page.textContent("#then-official"), "提交以获得正式结果");
  await page.click("#lang-toggle");

  // The catalog's next exercise after the ring, skipping one already solved.
  const ids = catalog.exercises.map((ex) => ex.id);
  const after = ids.slice(ids.indexOf("ring-allreduce") + 1).concat(ids.slice(0, ids.indexOf("ring-allreduce")));
  await page.evaluate((id) => localStorage.setItem(`cjudge:progress:${id}`, JSON.stringify("solved")), after[0]);

  await page.click("#then-official");
  await page.waitForSelector("#auth-dialog[open]");
  await page.fill("#auth-username", "ada");
  await page.fill("#auth-password", "correct horse battery staple");
  await page.press("#auth-password", "Enter");
  await page.waitForSelector(".result[data-verdict='accepted'] #next-exercise", { timeout: 30_000 });
  assert.equal(state.submitted.exercise, "ring-allreduce");
  assert.equal(state.submitted.code, REFERENCE);
  await eventually(assert.match, async () => await page.textContent(".result .source"), /Official verdict \(torch\)/);
  await eventually(assert.equal, async () => await page.locator("#then-official").count(), 0);
  const next = page.locator("#next-exercise");
  await eventually(assert.equal, async () => await next.textContent(), `Next: ${title(after[1])}`);
  await eventually(assert.equal, async () => await next.getAttribute("href"), `#/${after[1]}`);
  await eventually(assert.equal, async () => await page.evaluate(() => localStorage.getItem("cjudge:pending")), null, "nothing left to follow");
  assert.deepEqual(await axeViolations(page), [], "official accept (en)");
  await page.click("#lang-toggle");
  await eventually(assert.equal, async () => await next.textContent(), `下一题：${title(after[1], "zh")}`);
  assert.deepEqual(await axeViolations(page), [], "official accept (zh)");
  await next.click();
  await page.waitForFunction((id) => location.hash === `#/${id}`, after[1]);
  await eventually(assert.equal, async () => await page.getAttribute(`#exercise-list a[href="#/${after[1]}"]`, "aria-current"), "page");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("a submission interrupted by an outage and a reload is followed again when the server answers (en, zh)", async () => {
  const state = { mode: "up", id: 77, status: "running" };
  const page = await newPage(`${app.url}#/ring-allreduce`, {
    context: { serviceWorkers: "block" },
    ready: false,
    prepare: async (p) => {
      await fakeServer(state)(p);
      await p.addInitScript(() => {
        if (localStorage.getItem("cjudge:token")) return;
        localStorage.setItem("cjudge:token", JSON.stringify("tok-1"));
        localStorage.setItem("cjudge:user", JSON.stringify("ada"));
      });
    },
  });
  await page.waitForSelector("#logout");
  await setCode(page, REFERENCE);
  await page.click("#submit");
  await page.waitForSelector(".result[data-verdict='running']");
  await page.waitForSelector(".result[data-verdict='running'] tr.case.v-accepted[data-case='sample-4-ranks']"); // polled: its cases so far
  assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem("cjudge:pending"))), [{ id: 77, exercise: "ring-allreduce" }]);

  // The server goes away while the submission runs: the page says it will follow it later.
  state.mode = "down";
  await page.waitForSelector("#results .status.error");
  await eventually(assert.match, async () => await page.textContent("#results .status.error"), /submission #77 will be followed when it answers again/);
  await page.waitForSelector("#practice-banner:not([hidden])");

  // Reloaded while the server is still down: practice mode, the submission still pending.
  await page.reload();
  await page.waitForSelector("#practice-banner:not([hidden])");
  await eventually(assert.match, async () => await page.textContent("#practice-banner"), /Submission #77 will be followed as soon as the server answers again/);
  await eventually(assert.equal, async () => await page.isVisible("#submit"), false);
  await page.click("#lang-toggle");
  await eventually(assert.match, async () => await page.textContent("#practice-banner"), /服务器恢复后会继续跟踪提交 #77。/);

  // The server answers again with the verdict: the page finds it by itself.
  state.status = "done";
  state.mode = "up";
  await page.waitForSelector(".result[data-verdict='accepted']", { timeout: 30_000 });
  await eventually(assert.equal, async () => await page.isVisible("#practice-banner"), false);
  await eventually(assert.ok, async () => await page.isVisible("#submit"));
  await eventually(assert.match, async () => await page.textContent(".result .source"), /正式结果（torch）/);
  await eventually(assert.match, async () => await page.textContent("#next-exercise"), /^下一题：/);
  await eventually(assert.equal, async () => await progressOf(page, "ring-allreduce"), "solved");
  await eventually(assert.equal, async () => await page.evaluate(() => localStorage.getItem("cjudge:pending")), null);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("the service worker: the build lists every file with its hash; a reload offline serves the app and Python, and Stop works", async () => {
  // the build's list: the files the app and runner load, each with the sha256 of its content
  const offline = JSON.parse(readFileSync(`${dist}/offline.json`, "utf8"));
  for (const name of ["index.html", "app.js", "worker.js", "catalog.json", "pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide/kernel.snapshot"]) {
    assert.ok(offline.files[name], name);
  }
  for (const [name, { sha256 }] of Object.entries(offline.files)) {
    assert.equal(createHash("sha256").update(readFileSync(`${dist}/${name}`)).digest("hex"), sha256, name);
  }
  assert.ok(!Object.keys(offline.files).some((name) => /\.(map|br|gz)$/.test(name)));
  assert.ok(readFileSync(`${dist}/sw.js`, "utf8").startsWith(`self.OFFLINE = {"version":"${offline.version}"`), "sw.js is versioned by the list");

  const server = await serve(dist, 0, true); // a server of its own: this test stops it
  const url = `http://127.0.0.1:${server.address().port}/`;
  const page = await newPage(`${url}#/ring-allreduce`);
  const version = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready; // installed (every file cached) and active
    return new Promise((resolve) => {
      navigator.serviceWorker.onmessage = ({ data }) => resolve(data.version);
      registration.active.postMessage("version");
    });
  });
  assert.equal(version, offline.version);
  await eventually(assert.equal, async () => await page.evaluate(async () => (await (await caches.open("cjudge-files")).keys()).length), Object.keys(offline.files).length);

  // No network, no server: the reload comes from the service worker.
  await page.context().setOffline(true);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  const response = await page.reload();
  assert.ok(response.fromServiceWorker(), "index.html from the service worker");
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  await eventually(assert.match, async () => await page.textContent("#title"), /ring all-reduce/i);
  await page.waitForSelector("#practice-banner:not([hidden])");

  // Stop: the runner worker is replaced by a fresh one, whose Python also loads offline.
  await setCode(page, "def ring_all_reduce(t):\n    while True:\n        pass\n");
  await page.click("#run-sample");
  await page.waitForSelector('#runner-status[data-state="busy"]');
  await page.click("#stop");
  await page.waitForSelector("#results .status");
  await eventually(assert.equal, async () => await page.textContent("#results .status"), "Stopped.");
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  await setCode(page, REFERENCE);
  assert.equal((await runAndWait(page, "#run-sample")).verdict, "accepted");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
