// The workers path's hub (no Pyodide here): it owns one worker per rank, kept between cases,
// because the judge's worker, blocked while it serves a case, cannot start or hear workers. It
// starts a case's ranks; they then talk to the switch in the judge's worker directly.
import { answer } from "./sync-call.js";

const ranks = []; // {worker, ready: Promise}
let boot; // {pyodideUrl}
let judgeChannel;

function rankWorker(index) {
  if (ranks[index]) return ranks[index];
  const worker = new Worker(new URL("./rank-worker.js", import.meta.url), { type: "module" });
  const rank = { worker };
  rank.ready = new Promise((resolve) => {
    worker.onmessage = ({ data }) => {
      if (data.type === "ready") resolve();
    };
  });
  worker.postMessage({ type: "boot", ...boot });
  return (ranks[index] = rank);
}

async function prepare(world) {
  await Promise.all(Array.from({ length: world }, (_, r) => rankWorker(r).ready));
  return true;
}

/** Start rank r of the case on channels[r]; the judge's worker serves them from now on. */
function run({ job, channels, bell }) {
  channels.forEach((channel, rank) => {
    ranks[rank].worker.postMessage({ type: "run", job, rank, world: channels.length, channel, bell });
  });
}

onmessage = ({ data }) => {
  if (data.type === "boot") {
    ({ judgeChannel, ...boot } = data);
    postMessage("started");
  } else if (data.run) run(data.run);
  else answer(judgeChannel, prepare(data.sync.prepare));
};
