// Measures the browser judge in headless Chromium against web/dist (build it first):
//   cold page load to "Python ready", and click-Run-to-verdict with Pyodide warm, for the
//   ring-allreduce sample and the full suite, using the exercise's reference solution. Saves the
//   page with the last full run's result as web/screenshots/exercise.png.
// Usage: node scripts/measure.mjs [repeats=3] [--runner=workers]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { launch, VIEWPORT } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const repeats = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3);
const runner = process.argv.find((a) => a.startsWith("--runner="))?.slice(9);
const reference = readFileSync(`${repo}exercises/ring-allreduce/solution.py`, "utf8");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const READY = '#runner-status[data-state="ready"]';

async function runToVerdict(page, button) {
  await page.evaluate(() => document.getElementById("results").replaceChildren());
  const t0 = Date.now();
  await page.click(button);
  await page.waitForSelector(".result[data-verdict]:not([data-verdict='running'])", { timeout: 120_000 });
  const ms = Date.now() - t0;
  const verdict = await page.getAttribute(".result", "data-verdict");
  if (verdict !== "accepted") throw new Error(`the reference got ${verdict}`);
  return ms;
}

const server = await serve(fileURLToPath(new URL("../dist", import.meta.url)));
const url = `http://127.0.0.1:${server.address().port}/${runner ? `?runner=${runner}` : ""}#/ring-allreduce`;
const browser = await launch();
const numbers = { cold_load_ms: [], sample_run_ms: [], full_run_ms: [] };
try {
  for (let i = 0; i < repeats; i++) {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForSelector(READY, { timeout: 120_000 });
    numbers.cold_load_ms.push(Date.now() - t0);
    numbers.mode = await page.textContent("#runner-status");
    await page.evaluate((code) => localStorage.setItem("cjudge:code:ring-allreduce", JSON.stringify(code)), reference);
    await page.reload();
    await page.waitForSelector(READY, { timeout: 120_000 });
    await runToVerdict(page, "#run-sample"); // the first run also imports the simulated torch
    numbers.sample_run_ms.push(await runToVerdict(page, "#run-sample"));
    numbers.full_run_ms.push(await runToVerdict(page, "#run-all"));
    if (i === repeats - 1) await page.screenshot({ path: fileURLToPath(new URL("../screenshots/exercise.png", import.meta.url)), fullPage: true });
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
const summary = {
  runner: numbers.mode,
  repeats,
  load_average: loadavg().map((x) => Number(x.toFixed(1))), // on a shared 2-core machine, read the numbers with it
  cold_load_ms: median(numbers.cold_load_ms),
  sample_run_ms: median(numbers.sample_run_ms),
  full_run_ms: median(numbers.full_run_ms),
  all: numbers,
};
console.log(JSON.stringify(summary, null, 2));
console.log(`cold load to ready: ${summary.cold_load_ms} ms (target <= 5000)`);
console.log(`Run sample to verdict (warm): ${summary.sample_run_ms} ms; Run all tests: ${summary.full_run_ms} ms (target <= 1000)`);
