// The fallback's hub (no Pyodide here): it owns one worker per rank, kept between cases, and
// the coordinator of the running case, answering the judge's run_case and the ranks' calls.
import { Coordinator } from "./coordinator.js";
import { answer, newChannel } from "./sync-call.js";

const ranks = []; // {worker, channel, ready: Promise, done: (result) => void}
let boot; // {pyodideUrl, kernel}
let judgeChannel;

function rankWorker(index) {
  if (ranks[index]) return ranks[index];
  const worker = new Worker(new URL("./rank-worker.js", import.meta.url), { type: "module" });
  const rank = { worker, channel: newChannel() };
  rank.ready = new Promise((resolve) => {
    worker.onmessage = ({ data }) => {
      if (data.type === "ready") resolve();
      else if (data.type === "done") rank.done(data.result);
      else answer(rank.channel, rank.coordinator[data.sync.op](...data.sync.args));
    };
  });
  worker.postMessage({ type: "boot", ...boot });
  return (ranks[index] = rank);
}

async function prepare(world) {
  const workers = Array.from({ length: world }, (_, r) => rankWorker(r));
  await Promise.all(workers.map((w) => w.ready));
  return workers;
}

async function runCase(job, specs) {
  const world = specs.length;
  const workers = await prepare(world);
  const started = performance.now();
  let stop = null;
  const coordinator = new Coordinator(world, () => {
    stop = "deadlock";
    coordinator.abortBlocked();
  });
  const results = await Promise.all(
    workers.map((w, rank) => {
      w.coordinator = coordinator;
      w.worker.postMessage({ type: "run", job, spec: specs[rank], rank, channel: w.channel });
      return new Promise((resolve) => (w.done = resolve));
    }),
  );
  const { states, waiting } = coordinator;
  return JSON.stringify({ results, states, waiting, stop, wall_ms: performance.now() - started });
}

onmessage = ({ data }) => {
  if (data.type === "boot") {
    ({ judgeChannel, ...boot } = data);
    postMessage("started");
  }
  else if (data.sync.prepare) answer(judgeChannel, prepare(data.sync.prepare).then(() => true));
  else answer(judgeChannel, runCase(data.sync.job, data.sync.specs));
};
