// The browser's judge under Node (Pyodide): the same verdict JSON as the kernel's simulated
// runtime in CPython, for every exercise's reference and known-wrong solutions, with the ranks
// as suspended stacks (JSPI) and in workers of their own (worker threads standing in for Web
// Workers).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { bootPython } from "../../web/src/runner/boot.js";
import { JspiHub } from "../../web/src/runner/jspi-hub.js";
import { WorkersHub } from "../../web/src/runner/workers-hub.js";
import { dist, python, repo } from "./harness.mjs";
import { installWorker } from "./web-worker.mjs";

// A spinning rank is stopped by the page's watchdog, not here (see runner.test.mjs).
const WATCHDOG_ONLY = /^# expect: time_limit/m;
// the time limits both runtimes grade with here: the exercises' own, times this
const TIME_LIMIT_SCALE = 6;

const files = readdirSync(`${repo}exercises`).flatMap((id) => [
  `${id}:${repo}exercises/${id}/solution.py`,
  ...readdirSync(`${repo}exercises/${id}/wrong`)
    .map((name) => `${id}:${repo}exercises/${id}/wrong/${name}`)
    .filter((arg) => !WATCHDOG_ONLY.test(readFileSync(arg.split(":")[1], "utf8"))),
]);

let cpython;
before(() => {
  const env = { ...process.env, PYTHONPATH: `${repo}practice` };
  cpython = JSON.parse(execFileSync(python(), [`${repo}tests/web/sim_verdicts.py`, `--time-limit-scale=${TIME_LIMIT_SCALE}`, ...files], { env, maxBuffer: 1 << 28 }));
});

// Pyodide with the app's lock file and the kernel's wheels (npm run build)
const pyodideUrl = `${dist}/pyodide/`;

// The α-β model, and so the run view's modelled times, follow the order in which the switch
// matched messages, and which waits found their request done already: the interleaving decides
// both, and two CPython runs of one reference differ there (alltoall-p2p's modelled time, say).
// Of the timeline, what the program alone decides is compared: ids, modelled times, waits and
// the critical path left out, lists compared as sets.
// A new_group's id is its order of creation, and which rank creates a group first is the
// interleaving's choice too (hierarchical-allreduce's node groups): ids are left out, members stay.
const INTERLEAVED = new Set(["id", "last_recv", "t0", "t1", "end_t", "critical", "waits", "group"]);
function programFacts(value) {
  if (Array.isArray(value)) return value.map(programFacts).map((v) => JSON.stringify(v)).sort().map((v) => JSON.parse(v));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([key]) => !INTERLEAVED.has(key)).map(([key, v]) => [key, programFacts(v)]));
  }
  return value;
}

// Pyodide's newer Python marks the failing expression under a traceback's line (~~~^^^).
const withoutMarks = (text) => text.replace(/^ *[~^]+ *\n/gm, "");

// Pyodide's libm (exp, log, pow in WebAssembly) may round a last bit otherwise than the C
// library CPython uses: with inputs that use every mantissa bit (issue 35), an attention's or a
// layer norm's float64 outputs can differ there. A number within 1e-12 (relative) of the one
// CPython gave counts as that number; anything further apart still fails, with its diff.
function withinUlps(actual, expected) {
  if (typeof actual === "number" && typeof expected === "number") {
    return Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)) ? expected : actual;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) return actual.map((v, i) => withinUlps(v, expected[i]));
  if (actual && expected && typeof actual === "object" && typeof expected === "object") {
    return Object.fromEntries(Object.entries(actual).map(([key, v]) => [key, withinUlps(v, expected[key])]));
  }
  return actual;
}

// Everything but timings: verdicts, messages (the deadlock's who-waits-on-whom included), bytes,
// each rank's graded calls as the switch recorded them, tracebacks, the run view's program
// facts, the sample's outputs, printed output.
const essentials = (result) => ({
  verdict: result.verdict,
  message: result.message,
  message_zh: result.message_zh,
  skipped: result.skipped,
  stdout: result.stdout,
  exercise_hash: result.exercise_hash,
  cases: result.cases.map(caseFacts),
});

// A case's facts; the smallest failing case found for it is a case too, compared the same way.
function caseFacts({ wall_ms, model, timeline, details, smallest, ...rest }) {
  return {
    ...rest,
    details: details.map(withoutMarks),
    modelled: model !== undefined,
    timeline: programFacts(timeline),
    ...(smallest ? { smallest: caseFacts(smallest) } : {}),
  };
}

for (const mode of ["jspi", "workers"]) {
  describe(`ranks ${mode === "jspi" ? "as suspended stacks (JSPI)" : "in workers of their own"}`, () => {
    let kernel, hub;
    before(async () => {
      const py = await bootPython(pyodideUrl);
      kernel = py.pyimport("cjudge_web.judge");
      // on a loaded machine an 8-rank reference can outlast the exercise's time limit; the
      // watchdog is not what this compares (runner.test.mjs tests it), so both sides scale it
      py.runPython(`import dataclasses, cjudge_web.judge as j
j.EXERCISES.update({k: dataclasses.replace(v, time_limit_s=v.time_limit_s * ${TIME_LIMIT_SCALE})
                    for k, v in j.EXERCISES.items()})`);
      if (mode === "jspi") hub = new JspiHub(() => {});
      else {
        installWorker();
        hub = new WorkersHub(pyodideUrl, () => {}, py.pyimport("cjudge_web.wire").serve);
        await hub.started;
      }
    });
    after(() => hub?.worker?.terminate());

    // each case's run view is drawn when the page asks for it (cjudge_web.judge.timeline)
    const judge = async (arg) => {
      const [id, path] = arg.split(":");
      const result = JSON.parse(await hub.judge(kernel.judge, id, readFileSync(path, "utf8"), false));
      for (const c of result.cases) {
        assert.equal(c.timeline, undefined, `${c.name}: drawn before it was asked for`);
        const view = JSON.parse(kernel.timeline(id, c.name));
        if (view !== null) c.timeline = view;
      }
      return result;
    };

    for (const arg of files) {
      test(`same verdict as CPython's sim: ${arg.replace(repo, "")}`, async () => {
        const browser = await judge(arg);
        const want = essentials(cpython[arg]);
        assert.deepEqual(withinUlps(essentials(browser), want), want);
        assert.equal(browser.runtime, "sim");
      });
    }

    test("the full reference suite, judged again and again in one Pyodide, stays accepted", async () => {
      for (let i = 0; i < (mode === "jspi" ? 4 : 2); i++) assert.equal((await judge(files[0])).verdict, "accepted");
    });
  });
}
