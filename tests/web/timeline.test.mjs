// The run view in the page: the reference ring, a deadlock and a wrong chunk each drawn from the
// learner's own run (issue 13); clicking an arrow puts the editor's cursor on the sending line.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { cursorLine, eventually, exerciseFile, openPage, runAndWait, setCode, SHOTS, startApp } from "./harness.mjs";


let app;
before(async () => (app = await startApp({ isolation: false })));
after(async () => app?.close());

const view = (page, name) => page.locator(`details.timeline[data-case="${name}"]`);

/** The lines of an exercise's reference that call dist.isend: where its arrows were sent. */
const isendLines = (exercise) => exerciseFile(exercise, "solution.py").split("\n")
  .flatMap((text, i) => (text.includes("dist.isend(") ? [i + 1] : []));

/** The pairs of arrow labels in `timeline` whose drawn boxes intersect ("id/id": their arrows). */
const overlappingLabels = (timeline) => timeline.locator(".tl-svg").evaluate((svg) => {
  const boxes = [...svg.querySelectorAll(".tl-msg")].map((g) => ({ id: g.dataset.id, box: g.querySelector("text").getBBox() }));
  const meet = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  return boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => meet(a.box, b.box)).map((b) => `${a.id}/${b.id}`));
});

test("the reference ring's 8-rank case: 112 arrows, playback, click to the sending line", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, exerciseFile("ring-allreduce", "solution.py"));
  const { verdict } = await runAndWait(page, "#run-all", 180_000);
  assert.equal(verdict, "accepted");
  const ring = view(page, "8-ranks");
  // an accepted case's panel is closed: its view is drawn by the runner after the verdict, and
  // its counts fill the summary without opening it
  assert.equal(await ring.getAttribute("open"), null);
  await eventually(assert.match, async () => await ring.locator("summary").innerText(), /8 ranks, 112 messages, 14 steps$/);
  await ring.locator("summary").click();
  await eventually(assert.equal, async () => await ring.locator(".tl-msg").count(), 8 * 14);
  await eventually(assert.equal, async () => await ring.locator(".tl-position").textContent(), "Step 14 of 14");
  // playback: one step shows only the first step's 8 arrows
  await ring.locator(".tl-step").click();
  await eventually(assert.equal, async () => await ring.getAttribute("data-at"), "1");
  await eventually(assert.equal, async () => await ring.locator(".tl-msg:not(.tl-future)").count(), 8);
  // each rank's buffer: after step 1, rank r's chunk r−1 holds ranks r−1 and r (8 × 8 cells)
  const cell = (r, c) => ring.locator(`.tl-cell[data-rank="${r}"][data-chunk="${c}"]`);
  await eventually(assert.equal, async () => await ring.locator(".tl-cell").count(), 64);
  await eventually(assert.equal, async () => await cell(3, 2).textContent(), "2–3");
  await eventually(assert.equal, async () => await cell(3, 5).textContent(), "3");
  await eventually(assert.match, async () => await ring.locator(".tl-msg").first().locator("text").textContent(), /^500B c\d$/);
  for (let i = 0; i < 6; i += 1) await ring.locator(".tl-step").click();
  await eventually(assert.equal, async () => await cell(3, 4).textContent(), "0–7"); // chunk 4 reduced by step 7
  await eventually(assert.equal, async () => await cell(3, 5).textContent(), "0–3+5–7"); // 7 ranks: only 4 not yet added
  await ring.screenshot({ path: `${SHOTS}/run-view-ring-midway.png` });
  await ring.locator(".tl-play").click();
  await page.waitForFunction(() => document.querySelector('details.timeline[data-case="8-ranks"]').getAttribute("data-at") === "14", null, { timeout: 20_000 });
  await eventually(assert.equal, async () => await ring.locator(".tl-cell.tl-full").count(), 64);
  assert.deepEqual(await overlappingLabels(ring), [], "no arrow label over another (the 7 → 0 wrap-around's included)");
  // modelled time: the same arrows, the axis in µs
  await ring.locator('input[value="time"]').check();
  await eventually(assert.equal, async () => await ring.locator(".tl-msg").count(), 8 * 14);
  await eventually(assert.match, async () => await ring.locator(".tl-grid").textContent(), /µs/);
  assert.deepEqual(await overlappingLabels(ring), [], "nor on the modelled-time clock");
  // hover shows the details; a click moves the cursor to the line that sent it
  const arrow = ring.locator(".tl-msg").nth(20);
  const line = Number(await arrow.getAttribute("data-line"));
  assert.ok(isendLines("ring-allreduce").includes(line), String(line));
  await arrow.hover();
  await eventually(assert.match, async () => await ring.locator(".tl-info").textContent(), /^rank \d → rank \d: 500 B, tag 0, sent at line \d+/);
  await arrow.click();
  await eventually(assert.equal, async () => await cursorLine(page), line);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a deadlock draws its wait-for edges in red", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, exerciseFile("ring-allreduce", "wrong/recv_before_send.py"));
  assert.equal((await runAndWait(page)).verdict, "deadlock");
  const dead = view(page, "sample-4-ranks");
  await eventually(assert.equal, async () => await dead.getAttribute("open"), "");
  const edges = dead.locator(".tl-dead");
  await eventually(assert.equal, async () => await edges.count(), 4);
  const colour = await edges.first().locator("path").evaluate((p) => getComputedStyle(p).stroke);
  assert.equal(colour, "rgb(213, 94, 0)");
  await eventually(assert.deepEqual, async () => await edges.evaluateAll((es) => es.map((e) => `${e.dataset.rank}>${e.dataset.on}`).sort()), ["0>3", "1>0", "2>1", "3>2"]);
  await dead.screenshot({ path: `${SHOTS}/run-view-deadlock.png` });
  await edges.first().locator("text").click(); // its label: "rank 0 waits on rank 3 in recv (line 14)"
  await eventually(assert.equal, async () => await cursorLine(page), 14);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a wrong answer marks the first wrong element's chunk and the last write into it", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, exerciseFile("ring-allreduce", "wrong/allgather_one_step_short.py"));
  assert.equal((await runAndWait(page)).verdict, "wrong_answer");
  const wrong = view(page, "sample-4-ranks");
  await eventually(assert.equal, async () => await wrong.locator(".tl-msg").count(), 4 * 5);
  const mark = wrong.locator(".tl-wrong");
  await eventually(assert.equal, async () => await mark.getAttribute("data-chunk"), "2");
  await eventually(assert.match, async () => await mark.textContent(), /index 4, chunk 2/);
  await eventually(assert.equal, async () => await wrong.locator(".tl-msg.tl-last").count(), 1);
  await eventually(assert.equal, async () => await wrong.locator(".tl-cell.tl-full").count(), 12); // one finished chunk short per rank
  await page.click("#lang-toggle");
  await eventually(assert.match, async () => await page.locator('details.timeline[data-case="sample-4-ranks"] .tl-wrong').textContent(), /第 2 块/);
  await page.click("#lang-toggle");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a too_slow ring at 4 KiB beside recursive doubling: the critical path", async () => {
  const page = await openPage(app.browser, `${app.url}#/allreduce-small`);
  await page.setViewportSize({ width: 1280, height: 1400 });
  await setCode(page, exerciseFile("allreduce-small", "wrong/ring.py"));
  assert.equal((await runAndWait(page, "#run-all", 180_000)).verdict, "too_slow");
  const slow = page.locator("details.timeline[open]").first();
  await eventually(assert.ok, async () => await slow.locator(".tl-msg.tl-crit").count() > 0);
  await slow.screenshot({ path: `${SHOTS}/run-view-too-slow-ring.png` });
  await setCode(page, exerciseFile("allreduce-small", "solution.py"));
  assert.equal((await runAndWait(page, "#run-all", 180_000)).verdict, "accepted");
  const fast = page.locator('details.timeline[data-case="8-ranks"]');
  await fast.locator("summary").click();
  await eventually(assert.equal, async () => await fast.locator(".tl-position").textContent(), "Step 3 of 3");
  await fast.screenshot({ path: `${SHOTS}/run-view-recursive-doubling.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});
