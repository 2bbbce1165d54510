// The runner worker: one Pyodide with the kernel (restored from the build's memory snapshot:
// snapshot.js), judging a learner's code with the simulated runtime. Ranks run as
// suspended stacks here (JSPI) or, without JSPI, in one worker each.
import { hasJspi, kernelVersion } from "./boot.js";
import { JspiHub } from "./jspi-hub.js";
import { bootKernel, KERNEL_MODULE } from "./snapshot.js";
import { WorkersHub } from "./workers-hub.js";

const dist = new URL(".", import.meta.url).href;
const WARM_RANKS = 4; // rank workers started with the page (the sample case's world size)
let hub, kernel, version, warmCases;
// the warm-up (cjudge_web/warm.py) the JSPI path runs once Python is ready: every request waits for it
let warming = Promise.resolve();
let requested = false; // a request came: the warm-up ends after its current case

/**
 * When each stage of the boot ended (ms since the epoch, comparable with the page's clock):
 * web/scripts/measure.mjs reads them for its breakdown of the time to "Python ready".
 */
self.bootMarks = {};
const mark = (stage) => (self.bootMarks[stage] = performance.timeOrigin + performance.now());
mark("worker_start");

async function boot(mode) {
  const workers = mode === "workers" || !hasJspi();
  const { py, restored, snapshot } = await bootKernel(`${dist}pyodide/`, mark, { keep: workers });
  self.bootMarks.restored = restored;
  kernel = py.pyimport(KERNEL_MODULE);
  version = kernelVersion(py);
  if (!workers) {
    hub = new JspiHub((message) => postMessage(message));
    warmCases = py.pyimport("cjudge_web.warm").warm_up;
    return "JSPI";
  }
  if (!crossOriginIsolated) {
    throw new Error("this browser has no JSPI and the page is not cross-origin isolated: ranks cannot block");
  }
  const serve = py.pyimport("cjudge_web.wire").serve;
  hub = new WorkersHub(`${dist}pyodide/`, (message) => postMessage(message), serve, snapshot);
  await hub.started;
  hub.prepare(WARM_RANKS);
  return "workers";
}

/** How each rank worker started ("snapshot" or "fresh"), by rank: the workers path's tests read it. */
Object.defineProperty(self.bootMarks, "rank_boots", { enumerable: true, get: () => hub?.rankBoots ?? [] });

const handlers = {
  // `warm`: warm Python up once ready (cjudge_web/warm.py); not for a worker that grades a time limit
  async boot({ mode, warm }) {
    postMessage({ type: "ready", mode: await boot(mode), kernel: version });
    if (warm && warmCases) warming = warmUp();
  },
  async run({ exercise, code, samples }) {
    const result = await hub.judge(kernel.judge, exercise, code, samples);
    postMessage({ type: "done", result: JSON.parse(result) });
  },
  async perfetto({ id, case: graded, title }) {
    postMessage({ type: "perfetto", id, trace: kernel.perfetto(JSON.stringify(graded), title) });
  },
  // a case's run view, drawn when the page shows it (cjudge_web.judge.timeline); null: not kept
  async timeline({ id, exercise, name }) {
    postMessage({ type: "timeline", id, timeline: JSON.parse(kernel.timeline(exercise, name)) });
  },
  async timeout({ exercise, samples, name, graded }) {
    const result = kernel.timed_out(exercise, samples, name, JSON.stringify(graded));
    postMessage({ type: "done", result: JSON.parse(result) });
  },
};

/**
 * The warm-up's cases, on a hub of their own whose messages go nowhere (the page hears of none);
 * `bootMarks.warm_end` says when it ended, if it did not fail (web/scripts/runall.mjs reads it).
 */
async function warmUp() {
  try {
    await new JspiHub(() => {}).judge(warmCases, () => requested);
    mark("warm_end");
  } catch (error) {
    console.warn("the warm-up failed:", error);
  } finally {
    warmCases.destroy();
  }
}

onmessage = async ({ data }) => {
  try {
    if (data.type !== "boot") {
      requested = true;
      await warming;
    }
    await handlers[data.type](data);
  } catch (error) {
    const type = { boot: "failed", perfetto: "perfetto", timeline: "timeline" }[data.type] ?? "error";
    // a Python error's message may be empty here: its type (KeyError) still says something
    postMessage({ type, id: data.id, error: error?.message || error?.type || String(error) });
  }
};
