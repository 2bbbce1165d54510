// The whole problem set in the page (issue 12): the catalog lists every exercise by track, and
// Run all tests passes every exercise's reference in the browser's Pyodide, as it does on real
// ranks. Also saves the catalog's screenshot for docs/.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { eventually, exerciseFile, openPage, repo, runAndWait, setCode, SHOTS, startApp } from "./harness.mjs";

const served = readdirSync(`${repo}exercises`)
  .filter((id) => !/^draft\s*=\s*true/m.test(readFileSync(`${repo}exercises/${id}/exercise.toml`, "utf8")))
  .sort();

let app;
before(async () => (app = await startApp({ isolation: false })));
after(async () => app?.close());

test("the catalog lists every served exercise under its track", async () => {
  const page = await openPage(app.browser, `${app.url}#/ring-allreduce`, { viewport: { width: 1400, height: 2300 } });
  const links = await page.$$eval(".sidebar a[href^='#/']", (as) => as.map((a) => a.getAttribute("href").slice(2)));
  assert.deepEqual([...links].sort(), served);
  const tracks = await page.$$eval(".sidebar h3, .sidebar .track-title, .sidebar [data-track]", (els) => els.length);
  assert.ok(tracks >= 5, `${tracks} track headings`);
  // each exercise says how hard it is (exercise.toml's difficulty), in the page's language
  await eventually(assert.equal, async () => await page.locator(".sidebar .difficulty").count(), served.length);
  await eventually(assert.equal, async () => await page.locator('.sidebar li[data-exercise="alpha-beta"] .difficulty').textContent(), "intro");
  // and the chapter's sections it comes from
  await eventually(assert.equal, async () => await page.locator(".sidebar .chapter").count(), served.length);
  await eventually(assert.equal, async () => await page.locator('.sidebar li[data-exercise="hierarchical-allreduce"] .chapter').textContent(),
    "§ The ring all-reduce and its volume · The hardware topology");
  await page.locator(".sidebar").screenshot({ path: `${SHOTS}/catalog.png` });
  await page.click("#lang-toggle");
  await eventually(assert.equal, async () => await page.locator('.sidebar li[data-exercise="moe-dispatch-combine"] .difficulty').textContent(), "进阶");
  await page.click("#lang-toggle");
  assert.deepEqual(page.errors, []);
  await page.close();
});

for (const id of served) {
  test(`Run all tests accepts ${id}'s reference in the browser`, async () => {
    const page = await openPage(app.browser, `${app.url}#/${id}`);
    await setCode(page, exerciseFile(id, "solution.py"));
    const { verdict, text } = await runAndWait(page, "#run-all", 240_000);
    assert.equal(verdict, "accepted", text.slice(0, 600));
    const cases = readFileSync(`${repo}exercises/${id}/exercise.toml`, "utf8").match(/^\[\[cases\]\]/gm).length;
    await eventually(assert.equal, async () => await page.locator(".result tr.case.v-accepted").count(), cases);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test("a sample of lists and numbers shows each value in its place", async () => {
  const page = await openPage(app.browser, `${app.url}#/bucketed-allreduce`);
  await setCode(page, exerciseFile("bucketed-allreduce", "solution.py"));
  assert.equal((await runAndWait(page, "#run-sample", 120_000)).verdict, "accepted");
  const panel = page.locator(".sample-values").first();
  await panel.locator("summary").click();
  const heads = await panel.locator("tbody").first().locator("tr:not(.rank-head) th").allTextContents();
  // the input: a list of gradients and bucket_bytes; the result: the list, tensor by tensor
  assert.ok(heads.includes("Input[0][0]") && heads.includes("Input[1]"), heads.join(" | "));
  assert.ok(heads.some((h) => /^Expected\[\d+\]$/.test(h)) && heads.some((h) => /^Your output\[\d+\]$/.test(h)), heads.join(" | "));
  await eventually(assert.equal, async () => await panel.locator("tr.output .cell.wrong").count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});
