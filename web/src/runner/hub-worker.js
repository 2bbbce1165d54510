// The workers path's hub (no Pyodide here): it owns one worker per rank, kept between cases,
// because the judge's worker, blocked while it serves a case, cannot start or hear workers. It
// starts a case's ranks; they then talk to the switch in the judge's worker directly.
import { answer } from "./sync-call.js";

const ranks = []; // {worker, ready: Promise of how it started: "snapshot" or "fresh"}
let boot; // {pyodideUrl, snapshot}: the judge's worker's memory snapshot (shared bytes), if any
let judgeChannel;

function rankWorker(index) {
  if (ranks[index]) return ranks[index];
  const worker = new Worker(new URL("./rank-worker.js", import.meta.url), { type: "module" });
  const rank = { worker };
  rank.ready = new Promise((resolve) => {
    worker.onmessage = ({ data }) => {
      if (data.type === "ready") resolve(data.how);
    };
  });
  worker.postMessage({ type: "boot", ...boot });
  return (ranks[index] = rank);
}

/** Start (or find) `world` rank workers; how each started, by rank. */
const prepare = (world) => Promise.all(Array.from({ length: world }, (_, r) => rankWorker(r).ready));

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
