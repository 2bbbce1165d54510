// The runner worker: one Pyodide with the kernel, judging a learner's code with the simulated
// runtime. Ranks run as suspended stacks here (JSPI) or, without JSPI, in one worker each.
import { bootPython, hasJspi } from "./boot.js";
import { JspiHub } from "./jspi-hub.js";

const dist = new URL(".", import.meta.url).href;
let py, hub, judge;

async function boot(mode) {
  const kernel = await (await fetch(`${dist}kernel.zip`)).arrayBuffer();
  py = await bootPython(`${dist}pyodide/`, kernel);
  judge = py.pyimport("cjudge_web.judge");
  if (mode === "workers" || !hasJspi()) throw new Error("rank workers: not built yet");
  hub = new JspiHub(py, postMessage);
  return "JSPI";
}

const handlers = {
  async boot({ mode }) {
    postMessage({ type: "ready", mode: await boot(mode) });
  },
  async run({ exercise, code, samples }) {
    const result = await judge.judge.callPromising(exercise, code, samples, hub);
    postMessage({ type: "done", result: JSON.parse(result) });
  },
  async timeout({ exercise, samples, name, graded }) {
    const result = judge.timed_out(exercise, samples, name, JSON.stringify(graded));
    postMessage({ type: "done", result: JSON.parse(result) });
  },
};

onmessage = async ({ data }) => {
  try {
    await handlers[data.type](data);
  } catch (error) {
    postMessage({ type: data.type === "boot" ? "failed" : "error", error: String(error?.message ?? error) });
  }
};
