// The app as a learner meets it (issue 16), on the static build (no judge server): what counts as
// progress and where results land, shortcuts, errors in the editor, the sample's values, the
// Output pane, loading failures, the phone layout, and accessibility (axe-core) in both languages.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { axeViolations, cursorLine, editorText, eventually, exerciseFile, openPage, runAndWait, setCode, SHOTS, startApp } from "./harness.mjs";

const REFERENCE = exerciseFile("ring-allreduce", "solution.py");
const DEADLOCK = exerciseFile("ring-allreduce", "wrong/recv_before_send.py");
const STARTER = exerciseFile("ring-allreduce", "starter.py");
/** A judge server that answers (its exercise list), so that the page offers Submit: no practice mode. */
const withServer = (p) => p.route("**/api/exercises", (route) => route.fulfill({ contentType: "application/json", body: "[]" }));
const progressOf = (page, id) => page.getAttribute(`#exercise-list li[data-exercise="${id}"]`, "data-progress");

let app;
before(async () => (app = await startApp()));
after(async () => app?.close());

test("a sample pass is not progress; a full run is, for its own exercise, even after opening another", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, { prepare: withServer });
  await setCode(page, REFERENCE);
  const sample = await runAndWait(page, "Control+Enter");
  assert.equal(sample.verdict, "accepted");
  await eventually(assert.equal, async () => await page.getAttribute(".result", "data-sample-only"), "");
  await eventually(assert.match, async () => await page.textContent(".sample-only"), /not the verdict/);
  await eventually(assert.equal, async () => await page.textContent(".result-head .verdict"), "Sample passes", "no green Accepted badge");
  await eventually(assert.ok, async () => await page.isVisible("#then-run-all") && await page.isVisible("#then-submit"));
  await eventually(assert.equal, async () => await progressOf(page, "ring-allreduce"), "notStarted");

  // Run all tests, then open the transpose while it runs: the result waits in the sidebar.
  await page.click("#then-run-all");
  await page.click('#exercise-list a[href="#/alltoall-transpose"]');
  await page.waitForSelector('#exercise-list li[data-exercise="ring-allreduce"] .waiting .verdict.v-accepted', { timeout: 60_000 });
  await eventually(assert.equal, async () => await progressOf(page, "ring-allreduce"), "solved");
  await eventually(assert.equal, async () => await progressOf(page, "alltoall-transpose"), "notStarted");
  await eventually(assert.equal, async () => await page.locator("#results .result").count(), 0, "the transpose shows no result of the ring");
  await eventually(assert.equal, async () => await page.getAttribute('#exercise-list a[href="#/alltoall-transpose"]', "aria-current"), "page");
  await eventually(assert.match, async () => await page.title(), /transpose/i);
  await page.click('#exercise-list a[href="#/ring-allreduce"]');
  await eventually(assert.equal, async () => await page.getAttribute(".result", "data-verdict"), "accepted");
  await eventually(assert.equal, async () => await page.getAttribute(".result", "data-sample-only"), null);
  // each case's modelled time, a bar against the ring's bound: 8 ranks, 1 MB is 73.9 µs
  const eight = page.locator('tr.case[data-case="8-ranks"] .modelled');
  await eventually(assert.match, async () => await eight.textContent(), /modelled on h100x8.*1 MB 73\.9 µs/);
  await eventually(assert.equal, async () => await eight.locator(".fill.over").count(), 0);
  await eventually(assert.equal, async () => await page.locator("#exercise-list .waiting").count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("shortcuts: tooltips, the hint under the editor, Shift+Ctrl+Enter runs everything, Ctrl+' submits (in both languages)", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, { prepare: withServer });
  await eventually(assert.match, async () => await page.getAttribute("#run-sample", "title"), /^Ctrl\+Enter$/);
  await eventually(assert.match, async () => await page.getAttribute("#run-all", "title"), /^Shift\+Ctrl\+Enter$/);
  await eventually(assert.match, async () => await page.getAttribute("#submit", "title"), /^Ctrl\+'$/);
  await eventually(assert.match, async () => await page.textContent("#shortcut-hint"), /Ctrl\+Enter: run sample.*Esc then Tab: leave the editor/);
  await setCode(page, REFERENCE);
  const all = await runAndWait(page, "Shift+Control+Enter");
  assert.equal(all.verdict, "accepted");
  assert.ok((await page.locator("tr.case").count()) > 1, "every case ran");
  await eventually(assert.equal, async () => await page.getAttribute(".result", "data-sample-only"), null);
  await eventually(assert.equal, async () => await editorText(page), REFERENCE, "the shortcut inserted no line");
  // Logged out, Ctrl+' opens the log-in dialog, saying why.
  await page.keyboard.press("Control+'");
  await page.waitForSelector("#auth-dialog[open]");
  await eventually(assert.match, async () => await page.textContent("#auth-reason"), /submit/i);
  await page.click("#auth-cancel");
  await page.click("#lang-toggle");
  await eventually(assert.match, async () => await page.textContent("#shortcut-hint"), /Ctrl\+Enter：运行样例.*先按 Esc 再按 Tab：离开编辑器/);
  await page.close();
});

test("errors reach the editor: a compile error in monospace and marked; a deadlock leads with its cycle, then the fix", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, "import torch\n\ndef ring_all_reduce(t):\n    return (\n");
  const compile = await runAndWait(page, "Control+Enter");
  assert.equal(compile.verdict, "compile_error");
  await eventually(assert.match, async () => await page.$eval("pre.compile-error", (el) => getComputedStyle(el).fontFamily), /mono/i);
  await page.waitForSelector("#editor .cm-lint-marker-error");
  await eventually(assert.equal, async () => await page.locator("#editor .cm-lintRange-error").count(), 1);

  await setCode(page, DEADLOCK);
  const dead = await runAndWait(page, "Control+Enter");
  assert.equal(dead.verdict, "deadlock");
  const recvLine = DEADLOCK.split("\n").findIndex((l) => l.includes("dist.recv(buf, left)")) + 1;
  const cycle = await page.textContent(".deadlock .cycle");
  assert.match(cycle, new RegExp(`^0 → 3 → 2 → 1 → 0 \\(each waits on the next\\): every rank waits in recv, line ${recvLine}$`));
  // the sample's values: no value is wrong (no rank finished), so the panel stays closed and says why
  const values = '.case-detail[data-case="sample-4-ranks"] > .sample-values';
  await eventually(assert.equal, async () => await page.$eval(values, (d) => d.open), false);
  await eventually(assert.deepEqual, async () => await page.$$eval(`${values} tr.output .no-value`, (els) => [...new Set(els.map((e) => e.textContent))]),
    ["no result: this rank did not finish"]);
  // the four ranks are stuck the same way: one sentence says it, from the case's data
  await eventually(assert.equal, async () => await page.locator(".deadlock .waits li").count(), 1);
  await eventually(assert.match, async () => await page.textContent(".deadlock .waits li"), /^ranks 0–3 wait in recv \(line \d+\), each from a peer that is itself blocked/);
  await eventually(assert.match, async () => await page.textContent(".deadlock .fix"), /Fix: .*isend/);
  await page.waitForSelector("#editor .cm-lint-marker-error");
  await page.click(".deadlock .cycle .line-link");
  await eventually(assert.equal, async () => await cursorLine(page), recvLine);
  await page.click("#lang-toggle");
  await eventually(assert.match, async () => await page.textContent(".deadlock .cycle"), new RegExp(`^0 → 3 → 2 → 1 → 0（每个都在等下一个）：每个 rank 都在 recv 中等待，第 ${recvLine} 行$`));
  await eventually(assert.equal, async () => await page.textContent(`${values} tr.output .no-value`), "没有结果：该 rank 未完成");
  await eventually(assert.match, async () => await page.textContent(".deadlock .fix"), /修改方法：.*isend/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a wrong sample shows Input / Expected / Your output per rank, wrong cells marked, chunks drawn", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, STARTER);
  const { verdict } = await runAndWait(page, "Control+Enter");
  assert.equal(verdict, "wrong_answer");
  // the sample case's own panel (the smallest failing case below it has one of its own)
  const SAMPLE = '.case-detail[data-case="sample-4-ranks"] >';
  await page.waitForSelector(SAMPLE + " .sample-values[open]");
  await eventually(assert.equal, async () => await page.locator(SAMPLE + " .sample-values tbody").count(), 4, "one group per rank");
  await eventually(assert.deepEqual, async () => await page.$$eval(SAMPLE + " .sample-values tbody:first-child tr:not(.rank-head) th", (ths) => ths.map((t) => t.textContent)),
    ["Input", "Expected", "Your output"]);
  assert.ok((await page.locator(SAMPLE + " .sample-values tr.output .cell.wrong").count()) > 0);
  await eventually(assert.equal, async () => await page.locator(SAMPLE + " .sample-values tr.input .cell.wrong").count(), 0);
  await eventually(assert.equal, async () => await page.locator(SAMPLE + " .sample-values tbody:first-child tr.input .chunk-start").count(), 3, "4 chunks: 3 boundaries");
  await page.screenshot({ path: `${SHOTS}/sample-values.png` });
  await page.close();
});

test("the Output pane opens only when the learner printed something", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, REFERENCE);
  await runAndWait(page, "Control+Enter");
  await eventually(assert.equal, async () => await page.locator(".result .stdout").count(), 0);
  await setCode(page, REFERENCE.replace("def ring_all_reduce(t):", "def ring_all_reduce(t):\n    print('hello from', dist.get_rank())"));
  await runAndWait(page, "Control+Enter");
  await eventually(assert.match, async () => await page.textContent(".result details.stdout[open] pre"), /hello from 0/);
  await page.close();
});

test("a missing .wasm: progress in bytes, then the file is named and Retry loads it", async () => {
  let seen = [];
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, {
    prepare: async (p) => {
      await p.route("**/pyodide.asm.wasm", (route) => route.fulfill({ status: 404, body: "gone" }));
      await p.exposeFunction("statusSeen", (text) => seen.push(text));
      await p.addInitScript(() => addEventListener("DOMContentLoaded", () => {
        const el = document.getElementById("runner-status");
        new MutationObserver(() => window.statusSeen(el.textContent)).observe(el, { childList: true, subtree: true, characterData: true });
      }));
    },
  });
  await eventually(assert.equal, async () => await page.getAttribute("#runner-status", "data-state"), "failed");
  await eventually(assert.match, async () => await page.textContent("#runner-status"), /Could not load pyodide\/pyodide\.asm\.wasm \(HTTP 404\)/);

  await eventually(assert.match, async () => await page.getAttribute("#run-sample", "title"), /Retry/);
  await page.unroute("**/pyodide.asm.wasm");
  seen = [];
  await page.click("#runner-retry");
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  await eventually(assert.equal, async () => await page.textContent("#runner-status"), "Python ready");
  const counts = seen.map((s) => s.match(/Downloading Python: ([\d.]+) of ([\d.]+) MB/)).filter(Boolean);
  assert.ok(counts.length > 1, seen.join(" | "));
  assert.equal(counts.at(-1)[1], counts.at(-1)[2], "the count reaches the total");
  assert.ok(!seen.some((s) => /JSPI|workers/.test(s)), "no jargon in the status");
  await page.close();
});

test("on a phone: tabs Problem | Code | Result, full-width panes, one card per case", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, { viewport: { width: 390, height: 844 } });
  await eventually(assert.ok, async () => await page.isVisible("#tab-problem"));
  assert.ok((await page.$eval("#statement", (el) => el.getBoundingClientRect().width)) > 340);
  await eventually(assert.equal, async () => await page.isVisible("#editor"), false);
  await page.click("#tab-code");
  assert.ok((await page.$eval("#editor", (el) => el.getBoundingClientRect().width)) > 340);
  await eventually(assert.equal, async () => await page.isVisible("#statement"), false);
  await setCode(page, REFERENCE);
  await page.click("#run-all");
  await page.waitForSelector(".result[data-verdict='accepted']");
  await eventually(assert.equal, async () => await page.getAttribute("#tab-result", "aria-selected"), "true");
  await eventually(assert.equal, async () => await page.$eval("tr.case", (el) => getComputedStyle(el).display), "block");
  await eventually(assert.ok, async () => await page.$eval("body", (b) => b.scrollWidth <= innerWidth + 1), "nothing wider than the screen");
  await page.screenshot({ path: `${SHOTS}/phone-result.png` });
  await page.click("#tab-problem");
  await page.screenshot({ path: `${SHOTS}/phone-problem.png` });
  await page.close();
});

test("on a touch phone a line link or a run-view arrow switches to the Code tab, the line highlighted; the hint says tap", async () => {
  const page = await app.browser.newPage({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  await page.goto(`${app.url}#/ring-allreduce`);
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  await page.click("#tab-code");
  await setCode(page, DEADLOCK);
  await page.click("#run-sample");
  await page.waitForSelector(".result[data-verdict='deadlock']", { timeout: 60_000 });
  await eventually(assert.equal, async () => await page.getAttribute("#tab-result", "aria-selected"), "true");
  const recvLine = DEADLOCK.split("\n").findIndex((l) => l.includes("dist.recv(buf, left)")) + 1;
  await page.tap(".deadlock .cycle .line-link");
  await eventually(assert.equal, async () => await page.getAttribute("#tab-code", "aria-selected"), "true");
  await eventually(assert.ok, async () => await page.isVisible("#editor .cm-jump-target"), "the line is highlighted");
  await eventually(assert.equal, async () => await cursorLine(page), recvLine);
  const target = await page.$eval("#editor .cm-jump-target", (el) => el.textContent);
  assert.match(target, /dist\.recv\(buf, left\)/);
  await page.screenshot({ path: `${SHOTS}/phone-line-link.png` });
  // the run view: its hint says tap, and an arrow (a wait-for edge here) jumps too
  await page.click("#tab-result");
  const info = page.locator(".timeline[open] .tl-info").first();
  await eventually(assert.match, async () => await info.textContent(), /^Tap an arrow/);
  await page.click("#tab-result");
  await page.locator(".timeline[open] .tl-dead").first().dispatchEvent("click");
  await eventually(assert.equal, async () => await page.getAttribute("#tab-code", "aria-selected"), "true");
  await eventually(assert.equal, async () => await cursorLine(page), recvLine);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("opening an exercise puts the focus on its heading, then a skip link to Run sample", async () => {
  const page = await openPage(app.browser, `${app.url}#/`);
  await page.click('#exercise-list a[href="#/alltoall-transpose"]');
  await eventually(assert.equal, async () => await page.evaluate(() => document.activeElement?.id), "title");
  await page.keyboard.press("Tab");
  await eventually(assert.equal, async () => await page.evaluate(() => document.activeElement?.id), "skip-run");
  await eventually(assert.ok, async () => await page.$eval("#skip-run", (a) => a.getBoundingClientRect().left >= 0), "shown when focused");
  await page.keyboard.press("Enter");
  await eventually(assert.equal, async () => await page.evaluate(() => document.activeElement?.id), "run-sample");
  await eventually(assert.equal, async () => await page.evaluate(() => location.hash), "#/alltoall-transpose");
  await page.close();
});

test("axe-core: no serious or critical violation on the welcome page, an exercise, a result and a run view, in English and Chinese", async () => {
  const page = await openPage(app.browser, `${app.url}#/`, { prepare: withServer });
  for (const lang of ["en", "zh"]) {
    if (lang === "zh") await page.click("#lang-toggle");
    await page.goto(`${app.url}#/`);
    assert.deepEqual(await axeViolations(page), [], `welcome (${lang})`);
    await page.goto(`${app.url}#/ring-allreduce`);
    await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
    assert.deepEqual(await axeViolations(page), [], `exercise (${lang})`);
    await setCode(page, DEADLOCK);
    await runAndWait(page, "Control+Enter");
    assert.deepEqual(await axeViolations(page), [], `result (${lang})`);
    // a run view with its arrows open (an accepted case's is closed until asked for)
    await setCode(page, REFERENCE);
    await runAndWait(page, "Control+Enter");
    await page.click(".timeline > summary");
    await page.waitForSelector(".timeline[open] .tl-msg");
    assert.deepEqual(await axeViolations(page), [], `run view (${lang})`);
    await page.click("#login");
    assert.deepEqual(await axeViolations(page), [], `log-in dialog (${lang})`);
    await page.click("#auth-cancel");
  }
  await eventually(assert.equal, async () => await page.getAttribute("html", "lang"), "zh-CN");
  await page.close();
});
