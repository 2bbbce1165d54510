// The runner worker's warm-up (web/src/py/warm.py) under Node: its program is judged on every
// case of the ring all-reduce as a learner's run is (inputs made, ranks simulated, the case
// graded), its all-reduce right on each, so that the warm-up exercises what a learner's run
// does; warm_up judges within its bounds; and the page's runner worker runs it once Python is ready.
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
from cjudge.grading.grade import lazy_cases
from cjudge_web.warm import EXERCISE, warm_case
from cjudge_web.judge import EXERCISES

def warm_results(hub):
    exercise = EXERCISES[EXERCISE]
    return json.dumps([[case.name, warm_case(hub, exercise, case)["verdict"]]
                       for case in lazy_cases(exercise)])
`);
});

test("the warm-up judges every case of the ring: its all-reduce is right, over the bound past 2 ranks", async () => {
  const messages = [];
  const results = JSON.parse(await new JspiHub((m) => messages.push(m)).judge(py.globals.get("warm_results")));
  assert.deepEqual(results, [
    ["sample-4-ranks", "over_budget"], ["2-ranks-odd", "accepted"], ["3-ranks-float64", "over_budget"],
    ["3-ranks-one-each", "over_budget"], ["4-ranks-uneven", "over_budget"], ["8-ranks", "over_budget"],
    ["8-ranks-uneven-float64", "over_budget"],
  ]);
  assert.deepEqual(new Set(messages.map((m) => m.type)), new Set(["case-start"]));
});

test("warm_up judges at least one case and at most CASES; one when a request waits", async () => {
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
