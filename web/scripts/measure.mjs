// Measures the browser judge in headless Chromium against web/dist (build it first):
// * cold load: a fresh browser context (empty HTTP cache, no service worker) to "Python ready";
// * warm reload: the same page reloaded once the service worker holds the files;
// each with its breakdown from the runner worker's marks (web/src/runner/worker.js): the page
// and the download until the worker starts, pyodide.mjs, the interpreter (wasm compile and
// instantiate, the stdlib, Python's start), the kernel's wheels, the kernel's import; and, with
// Pyodide warm, click-Run-to-verdict for the ring-allreduce sample and the full suite, using the
// exercise's reference. The medians are of `repeats` runs.
// Usage: node scripts/measure.mjs [repeats=3] [--runner=workers] [--dist=DIR] [--write=FILE --label=NAME]
//   --dist serves another build (default web/dist), e.g. an older commit's, for a before/after
//   (--commit=REV names the commit it was built from: by default the checkout's HEAD);
//   --write replaces the section NAME of the Markdown FILE (made if missing) with this run's
//   numbers, the date and the machine: docs/web-load.md keeps "before" and "after" that way.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { launch, VIEWPORT } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const repeats = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3);
const runner = option("runner");
const reference = readFileSync(`${repo}exercises/ring-allreduce/solution.py`, "utf8");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const READY = '#runner-status[data-state="ready"]';
/** The worker's marks in order: each stage is the time from the previous mark to its own. */
const STAGES = ["worker_start", "pyodide_js", "interpreter", "wheels", "kernel_import"];

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

/** Navigate (`go`), wait for "Python ready": the total and each stage's ms. */
async function loadToReady(page, go) {
  const t0 = Date.now();
  await go();
  await page.waitForSelector(READY, { timeout: 600_000 });
  const total = Date.now() - t0;
  const worker = page.workers().filter((w) => w.url().endsWith("/worker.js")).at(-1);
  const marks = await worker.evaluate(() => self.bootMarks);
  const start = await page.evaluate(() => performance.timeOrigin);
  const stages = {};
  let last = start;
  for (const stage of STAGES) {
    stages[stage] = Math.round(marks[stage] - last);
    last = marks[stage];
  }
  stages.after_kernel = Math.round(t0 + total - last); // the hub's start and the page's answer
  return { total, stages, restored: Boolean(marks.restored) };
}

/** Compiling Pyodide's wasm alone, in a fresh page (part of the interpreter's stage). */
async function wasmCompile(browser, origin) {
  const page = await browser.newPage();
  await page.goto(`${origin}manifest.json`);
  const ms = await page.evaluate(async (wasm) => {
    const response = await fetch(wasm);
    if (!response.ok) throw new Error(`${wasm}: HTTP ${response.status}`);
    const bytes = await response.arrayBuffer();
    const t0 = performance.now();
    await WebAssembly.compile(bytes);
    return performance.now() - t0;
  }, `${origin}pyodide/pyodide.asm.wasm`);
  await page.close();
  return Math.round(ms);
}

const server = await serve(option("dist") ?? fileURLToPath(new URL("../dist", import.meta.url)));
const origin = `http://127.0.0.1:${server.address().port}/`;
const url = `${origin}${runner ? `?runner=${runner}` : ""}#/ring-allreduce`;
const browser = await launch();
const runs = { cold: [], warm: [], sample_run_ms: [], full_run_ms: [], wasm_compile_ms: [] };
let mode;
try {
  for (let i = 0; i < repeats; i++) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    runs.cold.push(await loadToReady(page, () => page.goto(url)));
    mode = await page.getAttribute("#runner-status", "data-mode");
    await page.evaluate(() => navigator.serviceWorker.ready); // the service worker holds the files
    await page.evaluate((code) => localStorage.setItem("cjudge:code:ring-allreduce", JSON.stringify(code)), reference);
    runs.warm.push(await loadToReady(page, () => page.reload()));
    await runToVerdict(page, "#run-sample"); // the first run also imports the simulated torch
    runs.sample_run_ms.push(await runToVerdict(page, "#run-sample"));
    runs.full_run_ms.push(await runToVerdict(page, "#run-all"));
    await context.close();
    runs.wasm_compile_ms.push(await wasmCompile(browser, origin));
  }
} finally {
  await browser.close();
  server.close();
}

const medianLoad = (loads) => ({
  total: median(loads.map((l) => l.total)),
  stages: Object.fromEntries(Object.keys(loads[0].stages).map((k) => [k, median(loads.map((l) => l.stages[k]))])),
});
const summary = {
  runner: mode,
  repeats,
  load_average: loadavg().map((x) => Number(x.toFixed(1))), // on a shared machine, read the numbers with it
  cold: medianLoad(runs.cold),
  warm: medianLoad(runs.warm),
  wasm_compile_ms: median(runs.wasm_compile_ms),
  sample_run_ms: median(runs.sample_run_ms),
  full_run_ms: median(runs.full_run_ms),
  all: runs,
};
console.log(JSON.stringify(summary, null, 2));
console.log(`cold load to ready: ${summary.cold.total} ms (target <= 3000); warm reload: ${summary.warm.total} ms (target <= 1500)`);
console.log(`Run sample to verdict (warm): ${summary.sample_run_ms} ms; Run all tests: ${summary.full_run_ms} ms`);

const file = option("write");
if (file) writeSection(file, option("label") ?? "latest", summary);

/** Replace (or add) the section `label` of the Markdown `file` with `s`'s numbers. */
function writeSection(file, label, s) {
  const head = "# Time to \"Python ready\" in the browser\n\nWritten by `node web/scripts/measure.mjs --write=docs/web-load.md --label=NAME` " +
    "(headless Chromium, web/dist served locally, medians of the repeats). Stages: the page and the download until the runner worker starts; " +
    "`pyodide_js` importing pyodide.mjs; `interpreter` loadPyodide (wasm compile and instantiate, the stdlib, Python's start, or the memory " +
    "snapshot's restore); `wheels` the kernel's wheels; `kernel_import` importing `cjudge_web.judge`; `after_kernel` the hub and the page's answer.\n";
  const commit = execFileSync("git", ["rev-parse", "--short", option("commit") ?? "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
  const chromium = execFileSync(process.env.CHROMIUM ?? "/usr/bin/chromium", ["--version"], { encoding: "utf8" }).trim();
  const row = (name, l) => `| ${name} | ${l.total} | ${Object.values(l.stages).join(" | ")} |`;
  const stages = Object.keys(s.cold.stages);
  const body = [
    `## ${label}`,
    "",
    `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit}; ${cpus().length} × ${cpus()[0].model}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB; ${chromium}; runner ${s.runner}; load average ${s.load_average.join(", ")}.`,
    "",
    `| load (median of ${s.repeats}) | to ready, ms | ${stages.join(" | ")} |`,
    `|${" --- |".repeat(stages.length + 2)}`,
    row("cold", s.cold),
    row("warm reload", s.warm),
    "",
    `Each run (cold / warm, ms): ${s.all.cold.map((l, i) => `${l.total} / ${s.all.warm[i].total}`).join("; ")}; ` +
      `Python restored from the memory snapshot (cold / warm): ${s.all.cold.some((l) => l.restored)} / ${s.all.warm.every((l) => l.restored)}. ` +
      `Compiling pyodide.asm.wasm alone: ${s.wasm_compile_ms} ms. Run sample: ${s.sample_run_ms} ms; Run all: ${s.full_run_ms} ms.`,
    "",
  ].join("\n");
  let text = existsSync(file) ? readFileSync(file, "utf8") : head;
  const start = `<!-- measure:${label} -->`;
  const end = `<!-- /measure:${label} -->`;
  const section = `${start}\n${body}${end}\n`;
  const at = text.indexOf(start);
  text = at < 0 ? `${text}\n${section}` : text.slice(0, at) + section + text.slice(text.indexOf(end) + end.length + 1);
  writeFileSync(file, text);
}
