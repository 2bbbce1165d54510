// The runner worker's warm-up (web/src/py/warm.py) under Node: its program runs on the simulated
// ranks to its end (every rank returns, its messages go round the ring), so that the warm-up
// exercises what a learner's run does, and warm_up runs it within its bounds; and the page's
// runner worker runs it once Python is ready.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { bootPython } from "../../web/src/runner/boot.js";
import { JspiHub } from "../../web/src/runner/jspi-hub.js";
import { dist, eventually, openPage, startApp } from "./harness.mjs";

let py, warm;
before(async () => {
  py = await bootPython(`${dist}/pyodide/`);
  warm = py.pyimport("cjudge_web.warm");
  py.runPython(`
import json
from cjudge_web.judge import run_case
from cjudge_web.warm import warm_case

def warm_raw(hub):
    return json.dumps(run_case(hub, *warm_case()))
`);
});

test("the warm-up's case runs to its end: every rank returns, messages go round the ring", async () => {
  const messages = [];
  const raw = JSON.parse(await new JspiHub((m) => messages.push(m)).judge(py.globals.get("warm_raw")));
  assert.equal(raw.stop, null);
  assert.deepEqual(raw.ranks.map((r) => [r.state, r.error]), Array(warm.WORLD).fill(["returned", null]));
  assert.equal(raw.trace.messages.length, warm.WORLD * 2 * warm.WORLD);
  assert.deepEqual(messages.map((m) => m.type), ["case-start"]);
});

test("warm_up runs its case at least once and at most CASES times; once when a request waits", async () => {
  const ran = await new JspiHub(() => {}).judge(warm.warm_up, () => false);
  assert.ok(ran >= 1 && ran <= warm.CASES, `ran ${ran} times`);
  assert.equal(await new JspiHub(() => {}).judge(warm.warm_up, () => true), 1);
});

test("the page's runner worker warms up once Python is ready", async () => {
  const app = await startApp();
  try {
    const page = await openPage(app.browser, `${app.url}#/ring-allreduce`);
    assert.equal(await page.getAttribute("#runner-status", "data-mode"), "JSPI");
    const worker = page.workers().find((w) => w.url().endsWith("/worker.js"));
    await eventually(assert.equal, () => worker.evaluate(() => typeof self.bootMarks.warm_end), "number");
  } finally {
    await app.close();
  }
});
