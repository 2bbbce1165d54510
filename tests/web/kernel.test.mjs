// The browser's judge under Node (Pyodide, JSPI): the same verdict JSON as the kernel's
// simulated runtime in CPython, for every exercise's reference and known-wrong solutions.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { before, test } from "node:test";
import { bootPython } from "../../web/src/runner/boot.js";
import { JspiHub } from "../../web/src/runner/jspi-hub.js";
import { dist, python, repo } from "./harness.mjs";

// A spinning rank is stopped by the page's watchdog, not here (see runner.test.mjs).
const WATCHDOG_ONLY = /^# expect: time_limit/m;

const files = readdirSync(`${repo}exercises`).flatMap((id) => [
  `${id}:${repo}exercises/${id}/solution.py`,
  ...readdirSync(`${repo}exercises/${id}/wrong`)
    .map((name) => `${id}:${repo}exercises/${id}/wrong/${name}`)
    .filter((arg) => !WATCHDOG_ONLY.test(readFileSync(arg.split(":")[1], "utf8"))),
]);

let kernel, hub, cpython;
before(async () => {
  const py = await bootPython(`${repo}web/node_modules/pyodide/`, new Uint8Array(readFileSync(`${dist}/kernel.zip`)));
  kernel = py.pyimport("cjudge_web.judge");
  hub = new JspiHub(() => {});
  const env = { ...process.env, PYTHONPATH: `${repo}practice` };
  cpython = JSON.parse(execFileSync(python(), [`${repo}tests/web/sim_verdicts.py`, ...files], { env, maxBuffer: 1 << 28 }));
});

const judge = async (arg) => {
  const [id, path] = arg.split(":");
  return JSON.parse(await hub.judge(kernel.judge, id, readFileSync(path, "utf8"), false));
};
// Everything but timings: verdicts, messages (the deadlock's who-waits-on-whom included), bytes,
// each rank's graded calls as the switch recorded them, the sample's outputs, printed output.
const essentials = (result) => ({
  verdict: result.verdict,
  message: result.message,
  message_zh: result.message_zh,
  skipped: result.skipped,
  stdout: result.stdout,
  exercise_hash: result.exercise_hash,
  cases: result.cases.map(({ wall_ms, ...rest }) => rest),
});

for (const arg of files) {
  test(`same verdict as CPython's sim: ${arg.replace(repo, "")}`, async () => {
    const browser = await judge(arg);
    assert.deepEqual(essentials(browser), essentials(cpython[arg]));
    assert.equal(browser.runtime, "sim");
  });
}

test("the full reference suite, judged again and again in one Pyodide, stays accepted", async () => {
  for (let i = 0; i < 4; i++) assert.equal((await judge(files[0])).verdict, "accepted");
});
