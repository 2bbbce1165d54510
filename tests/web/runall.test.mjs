// The browser's "Run all" for every exercise's reference, in catalog order on one page (each
// accepted, and a grader's memory bound shown where it has one); the run view's "Open in
// Perfetto" offline (the downloaded Chrome trace-event JSON: a process per rank, flows paired,
// slices nested per track); and the screenshots of a wrong, a too_slow and an over_budget result.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { dist, eventually, exerciseFile, openPage, repo, runAndWait, setCode, SHOTS, startApp } from "./harness.mjs";

const catalog = JSON.parse(readFileSync(`${dist}/catalog.json`, "utf8"));
const RUN_ALL_MS = 300_000; // a full suite on a loaded machine

let app, page;
before(async () => {
  app = await startApp();
  page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
});
after(async () => app?.close());

/** Open exercise `id` on the shared page, with `code` in the editor. */
async function openWith(id, code) {
  await page.evaluate((hash) => (location.hash = hash), `#/${id}`);
  await page.waitForSelector(`#exercise-list li[data-exercise="${id}"] a[aria-current="page"]`);
  await setCode(page, code);
}

test("Run all accepts every exercise's reference, and shows each memory bound", async () => {
  const ids = catalog.exercises.map((ex) => ex.id);
  assert.ok(ids.length >= 25, `only ${ids.length} exercises in the catalog`);
  // the exercises whose grader declares a memory bound (practice/cjudge/grading/grade.py: _check_memory)
  const declared = ids.filter((id) => /^def memory\(/m.test(readFileSync(`${repo}exercises/${id}/grader.py`, "utf8")));
  const failed = [];
  const shown = [];
  for (const id of ids) {
    await openWith(id, exerciseFile(id, "solution.py"));
    const { verdict, text } = await runAndWait(page, "#run-all", RUN_ALL_MS);
    if (verdict !== "accepted") failed.push(`${id}: ${verdict}: ${text.slice(0, 300)}`);
    const memory = page.locator(".result tr.case .memory");
    if (await memory.count()) {
      shown.push(id);
      for (const el of await memory.all()) {
        assert.ok(Number(await el.getAttribute("data-peak")) <= Number(await el.getAttribute("data-bound")), id);
        assert.match(await el.innerText(), /memory: peak \d+ .+, bound \d+/);
      }
    }
  }
  assert.deepEqual(failed, []);
  assert.ok(declared.length >= 2); // fsdp-prefetch, pipeline-1f1b
  assert.deepEqual(shown, declared);
});

test("Open in Perfetto, offline, downloads the case as Chrome trace-event JSON", async () => {
  await openWith("ring-allreduce", exerciseFile("ring-allreduce", "wrong/allgather_one_step_short.py"));
  assert.equal((await runAndWait(page)).verdict, "wrong_answer");
  const panel = page.locator("details.timeline[open]").first();
  await panel.locator(".tl-perfetto").waitFor();
  await panel.screenshot({ path: join(SHOTS, "run-view-perfetto.png") });
  await page.context().setOffline(true);
  try {
    await eventually(assert.equal, () => page.evaluate(() => navigator.onLine), false);
    const [download] = await Promise.all([page.waitForEvent("download"), panel.locator(".tl-perfetto").click()]);
    assert.match(download.suggestedFilename(), /^ring-allreduce-.+\.perfetto\.json$/);
    const trace = JSON.parse(readFileSync(await download.path(), "utf8"));
    const world = trace.otherData.world_size;
    assert.ok(world >= 2);
    // a process per rank on each clock, named after its rank
    const names = trace.traceEvents.filter((e) => e.ph === "M" && e.name === "process_name");
    assert.equal(names.length, world * trace.otherData.clocks.length);
    assert.deepEqual(new Set(names.map((e) => e.args.name.split(" · ")[0])), new Set([...Array(world).keys()].map((r) => `rank ${r}`)));
    // every message's flow has one start and one end
    const flows = new Map();
    for (const e of trace.traceEvents.filter((e) => e.ph === "s" || e.ph === "f")) flows.set(e.id, [...(flows.get(e.id) ?? []), e.ph]);
    assert.ok(flows.size > 0);
    for (const [id, phases] of flows) assert.deepEqual(phases.sort(), ["f", "s"], `flow ${id}`);
    // slices on one track never overlap
    const tracks = new Map();
    for (const e of trace.traceEvents.filter((e) => e.ph === "X")) tracks.set(`${e.pid}/${e.tid}`, [...(tracks.get(`${e.pid}/${e.tid}`) ?? []), e]);
    for (const slices of tracks.values()) {
      slices.sort((a, b) => a.ts - b.ts);
      for (let i = 1; i < slices.length; i++) assert.ok(slices[i].ts >= slices[i - 1].ts + slices[i - 1].dur - 1e-9);
    }
  } finally {
    await page.context().setOffline(false);
  }
});

for (const [id, file, verdict] of [
  ["ring-allreduce", "wrong/allgather_one_step_short.py", "wrong_answer"],
  ["ring-allreduce", "wrong/halves_every_step.py", "too_slow"],
  ["alltoall-transpose", "wrong/sends_full_rows.py", "over_budget"],
]) {
  test(`the result of ${id}/${file}: ${verdict} (a screenshot)`, async () => {
    await openWith(id, exerciseFile(id, file));
    assert.equal((await runAndWait(page, "#run-all", RUN_ALL_MS)).verdict, verdict);
    await page.locator(".result").screenshot({ path: join(SHOTS, `result-${id}-${verdict}.png`) });
  });
}

test("Open in Perfetto, online, hands the trace to ui.perfetto.dev by PING/PONG and postMessage", async () => {
  // the page without cross-origin isolation (COOP would cut it off from the tab), and a stand-in
  // for ui.perfetto.dev that answers as the real one does and keeps what it was sent
  const plain = await startApp({ isolation: false });
  try {
    const online = await openPage(plain.browser, `${plain.url}#/ring-allreduce`);
    await online.context().route("https://ui.perfetto.dev/**", (route) => route.fulfill({
      contentType: "text/html",
      body: `<script>addEventListener("message", (e) => {
        if (e.data === "PING") e.source.postMessage("PONG", "*");
        else if (e.data?.perfetto) window.received = { title: e.data.perfetto.title, text: new TextDecoder().decode(e.data.perfetto.buffer) };
      });</script>`,
    }));
    await setCode(online, exerciseFile("ring-allreduce", "wrong/allgather_one_step_short.py"));
    assert.equal((await runAndWait(online)).verdict, "wrong_answer");
    const [tab] = await Promise.all([online.waitForEvent("popup"), online.locator("details.timeline[open] .tl-perfetto").first().click()]);
    const received = await (await tab.waitForFunction(() => window.received, null, { timeout: 60_000 })).jsonValue();
    assert.match(received.title, /^ring-allreduce-.+\.perfetto\.json$/);
    const trace = JSON.parse(received.text);
    assert.ok(trace.traceEvents.some((e) => e.ph === "s"));
    assert.equal(trace.otherData.verdict, "wrong_answer");
  } finally {
    await plain.close();
  }
});
