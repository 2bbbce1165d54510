// The workers path's rank workers (browsers without JSPI): how long `world` of them take to start
// at once, as the runner starts them (4 with the page, 4 more for an 8-rank case), afresh
// (Pyodide loaded, the kernel's wheels installed: how they started before issue 27) and from the
// judge's worker's memory snapshot (how they start now), alternated in one run so that the ratio
// sees the same machine load. The snapshot is the build's (pyodide/kernel.snapshot), which the
// judge's worker restores and hands on.
// Usage: node scripts/rank-boot.mjs [repeats=3] [world=4] [--dist=DIR]   (build web/dist first)
import { fileURLToPath } from "node:url";
import { loadavg } from "node:os";
import { launch, VIEWPORT } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const [repeats = 3, world = 4] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await serve(option("dist") ?? fileURLToPath(new URL("../dist", import.meta.url)));
const origin = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
const times = { fresh: [], snapshot: [] };
try {
  const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
  await page.goto(`${origin}#/ring-allreduce`);
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 600_000 });
  for (let i = 0; i < repeats; i++) {
    for (const way of ["fresh", "snapshot"]) {
      const { ms, hows } = await page.evaluate(async ({ world, way }) => {
        let shared;
        if (way === "snapshot") { // as WorkersHub shares it: one SharedArrayBuffer for every rank
          const bytes = new Uint8Array(await (await fetch("pyodide/kernel.snapshot")).arrayBuffer());
          (shared = new Uint8Array(new SharedArrayBuffer(bytes.length))).set(bytes);
        }
        const t0 = performance.now();
        const hows = await Promise.all(Array.from({ length: world }, () => new Promise((resolve) => {
          const worker = new Worker(new URL("rank-worker.js", location), { type: "module" });
          worker.onmessage = ({ data }) => {
            if (data.type !== "ready") return;
            worker.terminate();
            resolve(data.how);
          };
          worker.postMessage({ type: "boot", pyodideUrl: new URL("pyodide/", location).href, snapshot: shared?.buffer });
        })));
        return { ms: performance.now() - t0, hows };
      }, { world, way });
      if (hows.some((how) => how !== way)) throw new Error(`asked for ${way}, the rank workers started ${hows.join(", ")}`);
      times[way].push(Math.round(ms));
    }
  }
} finally {
  await browser.close();
  server.close();
}
const fresh = median(times.fresh), snapshot = median(times.snapshot);
console.log(JSON.stringify({ world, repeats, load_average: loadavg().map((x) => Number(x.toFixed(1))), times }, null, 1));
console.log(`${world} rank workers at once, median of ${repeats}: afresh ${fresh} ms, from the snapshot ${snapshot} ms (${(fresh / snapshot).toFixed(1)}× faster)`);
