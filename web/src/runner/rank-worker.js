// One rank in a worker of its own (the workers path, without JSPI): its own Pyodide, and every
// call on the switch a blocking request to the judge's worker, which holds the case's switch.
import { bootPython } from "./boot.js";
import { requester } from "./sync-call.js";

let rankMain;

onmessage = async ({ data }) => {
  if (data.type === "boot") {
    const py = await bootPython(data.pyodideUrl);
    rankMain = py.pyimport("cjudge_web.wire").rank_main;
    postMessage({ type: "ready" });
  } else if (data.type === "run") {
    rankMain(data.job, data.rank, data.world, requester(data.channel, data.bell));
  }
};
