// One rank in a worker of its own (the fallback without JSPI): its own Pyodide, and every call on
// the case's coordinator a blocking call to the hub worker.
import { bootPython } from "./boot.js";
import { caller } from "./sync-call.js";

const OPS = ["post_send", "post_recv", "wait", "test", "pause", "finish"];
let rankMain;

onmessage = async ({ data }) => {
  if (data.type === "boot") {
    const py = await bootPython(data.pyodideUrl, data.kernel);
    rankMain = py.pyimport("cjudge_web.ranks").rank_main;
    postMessage({ type: "ready" });
  } else if (data.type === "run") {
    const call = caller(self, data.channel);
    const coordinator = Object.fromEntries(OPS.map((op) => [op, (...args) => call({ op, args })]));
    postMessage({ type: "done", result: rankMain(data.job, data.spec, data.rank, coordinator) });
  }
};
