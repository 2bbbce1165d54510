// Rendering cost of the run view (issue 13): time to draw an 8-rank ring case (112 messages) and
// a synthetic case of 10 000 messages (drawn aggregated) in this machine's Chromium.
// Usage: node scripts/timeline-bench.mjs
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import { launch } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const entry = fileURLToPath(new URL("../src/app/timeline.js", import.meta.url));
const bundle = await esbuild.build({ entryPoints: [entry], bundle: true, format: "iife", globalName: "TL", write: false });

/** A ring-like timeline: `world` ranks, each sending to the next at every one of `steps` steps. */
function ring(world, steps) {
  const messages = [];
  const step_ns = 5000;
  for (let s = 1; s <= steps; s++) {
    for (let r = 0; r < world; r++) {
      messages.push({ id: messages.length + 1, src: r, dst: (r + 1) % world, bytes: 500, tag: 0, line: 15, recv_line: 15, step: s, t0: (s - 1) * step_ns, t1: s * step_ns });
    }
  }
  const waits = [];
  for (let r = 0; r < world; r++) for (let s = 0; s < steps; s++) waits.push({ rank: r, s0: s, s1: s + 1, t0: s * step_ns, t1: (s + 1) * step_ns, line: 15 });
  return {
    version: 1, world_size: world, time_unit: "ns", topology: "h100x8", size: 1e6, run_size: 4000, scale: 250, modelled: true,
    steps, end_t: steps * step_ns, groups: [], lanes: [], messages, collectives: [], waits, pending: [], deadlock: [],
    critical: [], too_slow: false, wrong: null, cut: false, refused: [],
  };
}

const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// an http origin (the app's i18n keeps the language in localStorage), any served file will do
const server = await serve(fileURLToPath(new URL("../src/app/", import.meta.url)), 0, false);
await page.goto(`http://127.0.0.1:${server.address().port}/dom.js`);
await page.setContent("<!doctype html><body></body>");
await page.addScriptTag({ content: bundle.outputFiles[0].text });
for (const [label, view] of [["8-rank ring (112 messages)", ring(8, 14)], ["10 000 messages (8 ranks, 1250 steps)", ring(8, 1250)]]) {
  const times = await page.evaluate(async (view) => {
    const out = [];
    for (let i = 0; i < 5; i++) {
      document.body.replaceChildren();
      const root = document.createElement("div");
      document.body.append(root);
      const t0 = performance.now();
      TL.renderTimeline(root, view, {});
      root.getBoundingClientRect(); // layout included
      await new Promise((r) => requestAnimationFrame(() => r()));
      out.push(performance.now() - t0);
    }
    return out;
  }, view);
  const median = times.sort((a, b) => a - b)[2];
  console.log(`${label}: median ${median.toFixed(1)} ms to draw (5 runs: ${times.map((t) => t.toFixed(0)).join(", ")})`);
}
await browser.close();
server.close();
