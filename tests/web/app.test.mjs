// The app in headless Chromium against the static build served as any static server would (no
// judge, no cross-origin isolation headers): Run tests works in the browser, Submit cannot.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { editorText, eventually, exerciseFile, openPage, runAndWait, setCode, startApp } from "./harness.mjs";

let app;
before(async () => (app = await startApp({ isolation: false })));
after(async () => app?.close());

test("the page loads Pyodide offline and lists the exercises with their state", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await eventually(assert.equal, async () => await page.getAttribute("#runner-status", "data-state"), "ready", await page.textContent("#runner-status"));
  const item = page.locator('#exercise-list li[data-exercise="ring-allreduce"]');
  await eventually(assert.equal, async () => await item.getAttribute("data-progress"), "notStarted");
  await eventually(assert.match, async () => await page.textContent("#title"), /ring all-reduce/i);
  await eventually(assert.ok, async () => await page.locator("#statement-body .katex").count(), "formulas are rendered");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the language switches statement and UI to Chinese and back, and is remembered", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await page.click("#lang-toggle");
  await eventually(assert.equal, async () => await page.textContent("#run-all"), "运行全部测试");
  await eventually(assert.match, async () => await page.textContent("#statement-body"), /[\u4e00-\u9fff]/);
  await page.reload();
  await page.waitForSelector("#runner-status");
  await eventually(assert.equal, async () => await page.textContent("#run-all"), "运行全部测试");
  await page.click("#lang-toggle");
  await eventually(assert.equal, async () => await page.textContent("#run-all"), "Run all tests");
  await page.close();
});

test("code is kept between visits and reset brings back the starter", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, "# my attempt\n");
  await page.reload();
  await page.waitForSelector("#editor .cm-line");
  await eventually(assert.equal, async () => await editorText(page), "# my attempt\n");
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#reset");
  await eventually(assert.equal, async () => await editorText(page), exerciseFile("ring-allreduce", "starter.py").replace(/\n$/, "\n"));
  await page.close();
});

test("a syntax error is a compile_error with its line; a sample run is not progress", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, "def ring_all_reduce(t):\n    return (\n");
  const { verdict, text } = await runAndWait(page);
  assert.equal(verdict, "compile_error");
  assert.match(text, /line 2/);
  await eventually(assert.equal, async () => await page.getAttribute('#exercise-list li[data-exercise="ring-allreduce"]', "data-progress"), "notStarted");
  await runAndWait(page, "#run-all");
  await eventually(assert.equal, async () => await page.getAttribute('#exercise-list li[data-exercise="ring-allreduce"]', "data-progress"), "tried");
  await page.close();
});

test("without a judge server the page is in practice mode: no Submit", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await page.waitForSelector("#practice-banner:not([hidden])");
  await eventually(assert.equal, async () => await page.isVisible("#submit"), false);
  await page.close();
});

test("Submit to a judge server that stops answering says it is unreachable, then practice mode", async () => {
  let up = true;
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, {
    prepare: (p) => p.route("**/api/**", (route) => (up && route.request().url().endsWith("/api/exercises")
      ? route.fulfill({ contentType: "application/json", body: "[]" })
      : route.abort("connectionrefused"))),
  });
  await page.evaluate(() => localStorage.setItem("cjudge:user", JSON.stringify("someone")));
  up = false;
  await page.click("#submit");
  await page.waitForSelector(".status.error");
  await eventually(assert.match, async () => await page.textContent(".status.error"), /unreachable/);
  await page.waitForSelector("#practice-banner:not([hidden])");
  await page.close();
});
