// Every run ends in a verdict on screen: "Run sample" and "Run all" on every exercise's starter
// and on every one of its wrong/ files, on one page (the wrong files are private, never
// published to the browser: their text is put into the editor here, as a learner would paste
// it). And a NaN result (the ring-attention starter divides 0 by 0) is shown as nan.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { VERDICTS } from "../../web/src/app/verdict.js";
import { dist, exerciseFile, openPage, repo, startApp } from "./harness.mjs";

const catalog = JSON.parse(readFileSync(`${dist}/catalog.json`, "utf8"));
const RUN_MS = 120_000; // one run on a loaded machine, a time limit and a fresh worker included
// the codes a learner's file may get (generated from cjudge.contract.verdicts): any but the judge's own error
const CODES = new Set(VERDICTS.filter((code) => code !== "judge_error"));

let app, page;
before(async () => {
  app = await startApp();
  // a run the test breaks (window.breakNextRun): the judge is asked for an exercise it lacks
  const breaking = () => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      if (message?.type === "run" && window.breakNextRun) {
        window.breakNextRun = false;
        return post.call(this, { ...message, exercise: "no-such-exercise" }, ...rest);
      }
      return post.call(this, message, ...rest);
    };
  };
  page = await openPage(app.browser, `${app.url}#/ring-allreduce`, { prepare: (p) => p.addInitScript(breaking) });
});
after(async () => app?.close());

/** Open exercise `id` on the shared page. */
async function open(id) {
  await page.evaluate((hash) => (location.hash = hash), `#/${id}`);
  await page.waitForSelector(`#exercise-list li[data-exercise="${id}"] a[aria-current="page"]`);
}

/** The editor's whole text replaced by `code` in one change (as a paste; typing 200 files is slow). */
const setCode = (code) => page.$eval("#editor .cm-content", (content, text) => {
  const view = content.cmTile.root.view;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}, code);

/** Click `button` and wait for a verdict newer than what the page showed before: its code. */
async function verdictOf(button) {
  await page.$$eval(".result", (shown) => shown.forEach((el) => el.setAttribute("data-stale", "")));
  await page.click(button);
  const result = await page.waitForSelector(".result[data-verdict]:not([data-verdict='running']):not([data-stale])", { timeout: RUN_MS });
  return result.getAttribute("data-verdict");
}

/** An exercise's starter, then each wrong file: [name, code]. */
const files = (id) => [
  ["starter.py", exerciseFile(id, "starter.py")],
  ...readdirSync(`${repo}exercises/${id}/wrong`).sort().map((name) => [`wrong/${name}`, exerciseFile(id, `wrong/${name}`)]),
];

test("a NaN in the sample's output is shown as nan, and the run ends in its verdict", async () => {
  await open("ring-attention");
  await setCode(exerciseFile("ring-attention", "starter.py"));
  assert.equal(await verdictOf("#run-sample"), "wrong_answer");
  assert.match(await page.locator(".result p.summary").innerText(), /got nan/);
  const cells = page.locator(".result details.sample-values tr.output .cell");
  assert.ok((await cells.count()) > 0);
  assert.deepEqual(new Set(await cells.allInnerTexts()), new Set(["nan"]));
  assert.equal(await page.locator(".result details.sample-values tr.output .cell.wrong").count(), await cells.count());
  assert.deepEqual(page.errors, []);
});

test("a run the judge cannot finish ends in a judge_error verdict that says why", async () => {
  await open("ring-allreduce");
  await setCode(exerciseFile("ring-allreduce", "starter.py"));
  await page.evaluate(() => (window.breakNextRun = true));
  assert.equal(await verdictOf("#run-sample"), "judge_error");
  assert.match(await page.locator(".result p.summary").innerText(), /^The judge in your browser failed \(its fault, not your code's\): KeyError/);
  assert.equal(await verdictOf("#run-sample"), "wrong_answer"); // the next run is judged again
});

for (const { id } of catalog.exercises) {
  test(`${id}: Run sample and Run all end in a verdict for the starter and every wrong file`, async () => {
    await open(id);
    const wrong = [];
    for (const [name, code] of files(id)) {
      await setCode(code);
      const sample = await verdictOf("#run-sample");
      const all = await verdictOf("#run-all");
      // a wrong file may pass the sample; over every case none is accepted, none is the judge's fault
      if (!CODES.has(sample) || !CODES.has(all) || all === "accepted") wrong.push(`${name}: sample ${sample}, all ${all}`);
    }
    assert.deepEqual(wrong, []);
    assert.deepEqual(page.errors, []);
  });
}
