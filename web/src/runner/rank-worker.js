// One rank in a worker of its own (the workers path, without JSPI): its own Pyodide, restored from
// the judge's worker's memory snapshot when it sent one (else started and loaded afresh), and
// every call on the switch a blocking request to the judge's worker, which holds the case's switch.
import { bootPython } from "./boot.js";
import { bootFromSnapshot } from "./snapshot.js";
import { requester } from "./sync-call.js";

let rankMain;

/** Pyodide with the kernel: from `snapshot` (shared bytes, copied: Pyodide decodes from them) if given. */
async function start(pyodideUrl, snapshot) {
  const restored = snapshot ? await bootFromSnapshot(pyodideUrl, new Uint8Array(snapshot).slice()) : { py: null };
  return restored.py ? { py: restored.py, how: "snapshot" } : { py: await bootPython(pyodideUrl), how: "fresh" };
}

onmessage = async ({ data }) => {
  if (data.type === "boot") {
    const { py, how } = await start(data.pyodideUrl, data.snapshot);
    rankMain = py.pyimport("cjudge_web.wire").rank_main;
    postMessage({ type: "ready", how });
  } else if (data.type === "run") {
    rankMain(data.job, data.rank, data.world, requester(data.channel, data.bell));
  }
};
