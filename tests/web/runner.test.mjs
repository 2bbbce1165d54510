// Run tests in the browser: the simulated runtime graded by the kernel inside Pyodide, in
// headless Chromium, through the ranks-as-suspended-stacks runner (JSPI) and the one-worker-per-
// rank fallback.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { eventually, exerciseFile, openPage, python, repo, runAndWait, setCode, startApp } from "./harness.mjs";

const REFERENCE = exerciseFile("ring-allreduce", "solution.py");
const WRONG = exerciseFile("ring-allreduce", "wrong/allgather_one_step_short.py");
const DEADLOCK = exerciseFile("ring-allreduce", "wrong/recv_before_send.py");
const NEVER_ENDS = exerciseFile("ring-allreduce", "wrong/index_walk_never_ends.py");
const SPIN = `import torch.distributed as dist

def ring_all_reduce(t):
    while True:
        pass
`;

let app, cpythonDeadlock;
before(async () => {
  app = await startApp();
  const arg = `ring-allreduce:${repo}exercises/ring-allreduce/wrong/recv_before_send.py`;
  const env = { ...process.env, PYTHONPATH: `${repo}practice` };
  cpythonDeadlock = JSON.parse(execFileSync(python(), [`${repo}tests/web/sim_verdicts.py`, arg], { env }))[arg];
});
after(async () => app?.close());

for (const runner of ["jspi", "workers"]) {
  describe(`runner: ${runner}`, () => {
    const url = () => `${app.url}?runner=${runner === "jspi" ? "auto" : "workers"}#/ring-allreduce`;

    test("the reference is accepted on every case, with bytes per rank within the bound", async () => {
      const page = await openPage(app.browser, url());
      await eventually(assert.equal, async () => await page.getAttribute("#runner-status", "data-mode"), runner === "jspi" ? "JSPI" : "workers");
      await setCode(page, REFERENCE);
      const { verdict } = await runAndWait(page, "#run-all");
      assert.equal(verdict, "accepted");
      assert.ok((await page.locator("tr.case.v-accepted").count()) >= 6);
      await eventually(assert.equal, async () => await page.locator(".bar .fill.over").count(), 0);
      await eventually(assert.equal, async () => await page.getAttribute('#exercise-list li[data-exercise="ring-allreduce"]', "data-progress"), "solved");
      if (runner === "workers") {
        // every rank worker, the 8-rank case's too, started from the judge's worker's memory snapshot
        const boots = await page.workers().find((w) => w.url().endsWith("/worker.js")).evaluate(() => self.bootMarks.rank_boots);
        assert.deepEqual(boots, Array(8).fill("snapshot"));
      }
      await page.close();
    });

    test("a wrong solution gets wrong_answer with a learner-facing message", async () => {
      const page = await openPage(app.browser, url());
      await setCode(page, WRONG);
      const { verdict, text } = await runAndWait(page);
      assert.equal(verdict, "wrong_answer");
      assert.match(text, /rank \d+.*index \d+.*expected/s);
      await page.close();
    });

    test("a deadlock is described as who waits on whom, as CPython's simulation says it", async () => {
      const page = await openPage(app.browser, url());
      await setCode(page, DEADLOCK);
      const { verdict, text } = await runAndWait(page);
      assert.equal(verdict, "deadlock");
      const waits = cpythonDeadlock.message.split("; ").filter((part) => /^ranks? [\d–, ]+ waits? in/.test(part));
      assert.ok(waits.length >= 1, cpythonDeadlock.message);
      for (const part of waits) assert.ok(text.includes(part), `${part} in:\n${text}`);
      await page.close();
    });
  });
}

test("a wrong ring shows the smallest case that fails the same way, with its values", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, readFileSync(`${repo}tests/mistakes/ring_allreduce/allgather_off_by_one.py`, "utf8"));
  const { verdict } = await runAndWait(page);
  assert.equal(verdict, "wrong_answer");
  const small = page.locator(".smallest");
  await eventually(assert.match, async () => await small.locator("p.message").textContent(),
    /^fails already at n = 2, numel = 2: rank 0: .*expected 11, got 1/);
  assert.equal(await small.locator("table.sample tbody").count(), 2); // each rank's values
  await page.close();
});

test("Stop ends an infinite loop and the runner comes back ready", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, SPIN);
  await page.click("#run-sample");
  await page.waitForSelector('#runner-status[data-state="busy"]');
  await page.waitForTimeout(500);
  await page.click("#stop");
  await page.waitForSelector(".status");
  await eventually(assert.match, async () => await page.textContent(".status"), /Stopped/);
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  await setCode(page, REFERENCE);
  assert.equal((await runAndWait(page)).verdict, "accepted");
  await page.close();
});

test("a rank past the time limit gets time_limit, and the runner is ready again", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  await setCode(page, NEVER_ENDS);
  const { verdict, text } = await runAndWait(page, "#run-all");
  assert.equal(verdict, "time_limit");
  assert.match(text, /limit/);
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 60_000 });
  await page.close();
});

const bootedFromSnapshot = (page) => page.workers().find((w) => w.url().endsWith("/worker.js")).evaluate(() => self.bootMarks.restored);

test("Python starts from the build's memory snapshot, and it judges", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
  assert.equal(await bootedFromSnapshot(page), true); // on the first visit: the snapshot is the build's
  await setCode(page, REFERENCE);
  assert.equal((await runAndWait(page, "#run-all")).verdict, "accepted");
  await setCode(page, WRONG);
  assert.equal((await runAndWait(page)).verdict, "wrong_answer");
  await page.close();
});

test("a snapshot made with other wheels is not restored: Python starts afresh, and it judges", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, {
    prepare: (p) => p.context().route("**/pyodide/kernel.snapshot.json", async (route) => {
      const about = await (await route.fetch()).json();
      await route.fulfill({ json: { ...about, lock_sha256: "0".repeat(64) } });
    }),
  });
  assert.equal(await page.getAttribute("#runner-status", "data-state"), "ready");
  assert.equal(await bootedFromSnapshot(page), false);
  await setCode(page, REFERENCE);
  assert.equal((await runAndWait(page, "#run-all")).verdict, "accepted");
  await page.close();
});

test("a snapshot made without JSPI is not restored where the page has JSPI: Python starts afresh", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, {
    prepare: (p) => p.context().route("**/pyodide/kernel.snapshot.json", async (route) => {
      const about = await (await route.fetch()).json();
      await route.fulfill({ json: { ...about, jspi: false } });
    }),
  });
  assert.equal(await bootedFromSnapshot(page), false);
  await setCode(page, REFERENCE);
  assert.equal((await runAndWait(page, "#run-all")).verdict, "accepted");
  await page.close();
});
