// Measures "Run all" on the ring all-reduce's reference in headless Chromium (issue 37: <= 0.5 s),
// for one or more builds side by side: each round opens a fresh page of every build in turn
// (a fresh context: no HTTP cache, no wasm code cache), waits `delay` ms after "Python ready"
// (a learner reading the statement), then clicks Run all `clicks` times. Each click's time to
// the verdict is split at the runner worker's messages: the click to the worker's start of the
// run, the worker's judging (its first case graded, and the rest), and the page's drawing of the
// verdict after the worker's answer. Builds alternate so that a machine shared with other jobs
// loads each alike: compare them within one run, by the median of each round's ratio to the first
// build (printed after the first build's lines).
// Usage: node scripts/runall.mjs [rounds=3] [--delay=MS] [--clicks=N] [--dist=DIR]...
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { launch, VIEWPORT } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const options = (name) => process.argv.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));
const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3);
const delay = Number(options("delay")[0] ?? 3000);
const clicks = Number(options("clicks")[0] ?? 2);
const dists = options("dist").length ? options("dist") : [fileURLToPath(new URL("../dist", import.meta.url))];
const reference = readFileSync(`${repo}exercises/ring-allreduce/solution.py`, "utf8");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Log, in the runner worker, when each message arrives and each answer leaves (ms since the epoch). */
function logWorker() {
  const now = () => performance.timeOrigin + performance.now();
  self.runLog = [];
  const post = self.postMessage.bind(self);
  self.postMessage = (message) => (self.runLog.push([message.type, now()]), post(message));
  const handle = self.onmessage;
  self.onmessage = (event) => (self.runLog.push([`in:${event.data.type}`, now()]), handle(event));
}

/** Click Run all on `page`; the verdict's times, split at the worker's messages. */
async function runAll(page, worker) {
  await page.evaluate(() => document.getElementById("results").replaceChildren());
  await worker.evaluate(() => (self.runLog = []));
  const clicked = await page.evaluate(() => {
    window.verdictAt = new Promise((resolve) => new MutationObserver((_, observer) => {
      if (document.querySelector(".result[data-verdict]:not([data-verdict='running'])")) {
        observer.disconnect();
        resolve(performance.timeOrigin + performance.now());
      }
    }).observe(document.getElementById("results"), { subtree: true, childList: true, attributes: true }));
    const at = performance.timeOrigin + performance.now();
    document.getElementById("run-all").click();
    return at;
  });
  const shown = await page.evaluate(() => window.verdictAt);
  const verdict = await page.getAttribute(".result", "data-verdict");
  if (verdict !== "accepted") throw new Error(`the reference got ${verdict}`);
  const { log, warmEnd } = await worker.evaluate(() => ({ log: self.runLog, warmEnd: self.bootMarks.warm_end }));
  const at = (type) => log.find(([t]) => t === type)?.[1];
  const warmWait = Math.max(0, (warmEnd ?? 0) - at("in:run"));
  return {
    total: shown - clicked,
    to_worker: at("in:run") - clicked,
    warm_wait: warmWait,
    first_case: at("case") - at("in:run") - warmWait,
    other_cases: at("done") - at("case"),
    page: shown - at("done"),
  };
}

/** One fresh page of the build served at `origin`: each click's times. */
async function measure(browser, origin) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.addInitScript((code) => localStorage.setItem("cjudge:code:ring-allreduce", JSON.stringify(code)), reference);
    await page.goto(`${origin}#/ring-allreduce`);
    await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 600_000 });
    const worker = page.workers().find((w) => w.url().endsWith("/worker.js"));
    await worker.evaluate(logWorker);
    await page.waitForTimeout(delay);
    const out = [];
    for (let i = 0; i < clicks; i++) out.push(await runAll(page, worker));
    return out;
  } finally {
    await context.close();
  }
}

const servers = await Promise.all(dists.map((dir) => serve(dir)));
const origins = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const browser = await launch();
const times = dists.map(() => []);
try {
  for (let r = 0; r < rounds; r++) {
    for (const [i, origin] of origins.entries()) times[i].push(await measure(browser, origin));
  }
} finally {
  await browser.close();
  for (const s of servers) s.close();
}

console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(", ")}; ${rounds} rounds, Run all clicked ${delay} ms after ready, ${clicks} times a page`);
for (const [i, dir] of dists.entries()) {
  for (let c = 0; c < clicks; c++) {
    const runs = times[i].map((page) => page[c]);
    const parts = Object.keys(runs[0]).map((k) => `${k} ${Math.round(median(runs.map((x) => x[k])))}`);
    const ratios = i ? `; × the first build's, median of the rounds: ${median(runs.map((x, r) => x.total / times[0][r][c].total)).toFixed(2)}` : "";
    console.log(`${dir} click ${c + 1} (median ms): ${parts.join(", ")}; totals ${runs.map((x) => Math.round(x.total)).join(" ")}${ratios}`);
  }
}
