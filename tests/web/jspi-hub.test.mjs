// Ranks as suspended stacks in one Pyodide under Node (JSPI): the hub, the coordinator and the
// Python transport together, with small rank programs instead of the simulated torch.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, test } from "node:test";
import { bootPython } from "../../web/src/runner/boot.js";
import { JspiHub } from "../../web/src/runner/jspi-hub.js";
import { dist, repo } from "./harness.mjs";

const PROGRAMS = `
import json
from cjudge_web.transport import Aborted, JsTransport

def rank_main(job_json, spec_json, rank, coordinator):
    t = JsTransport(coordinator)
    n = json.loads(spec_json)["world_size"]
    program = json.loads(job_json)["program"]
    right, left = (rank + 1) % n, (rank - 1) % n
    try:
        if program == "ring":
            send = t.post_send(rank, right, "p2p", bytes([rank]))
            src, got = t.wait(rank, t.post_recv(rank, left, "p2p"), "recv")
            t.wait(rank, send, "send")
            while not t.test(t.post_recv(rank, None, "poll")) and rank == 0:
                pass  # rank 0 polls until rank n-1 sends; the others must get turns
            if rank == n - 1:
                t.post_send(rank, 0, "poll", b"")
            out = [src, got[0]]
        elif program == "recv_from_finished":
            out = t.wait(rank, t.post_recv(rank, 1, "p2p"), "recv") if rank == 0 else "done"
        else:  # everyone sends first: gloo's sends wait for the receive
            out = t.wait(rank, t.post_send(rank, right, "p2p", b"x"), "send")
    except Aborted as stop:
        return json.dumps({"aborted": str(stop)})
    t.finish(rank, "returned")
    return json.dumps({"out": out})
`;

let py, hub;
const messages = [];
before(async () => {
  py = await bootPython(`${repo}web/node_modules/pyodide/`, new Uint8Array(readFileSync(`${dist}/kernel.zip`)));
  py.runPython(PROGRAMS);
  hub = new JspiHub(py.globals.get("rank_main"), (m) => messages.push(m));
});

const run = async (program, world) => {
  const specs = Array(world).fill(JSON.stringify({ name: program, world_size: world }));
  const outcome = JSON.parse(await hub.run_case(JSON.stringify({ program, time_limit_s: 5 }), JSON.stringify(specs)));
  return { ...outcome, results: outcome.results.map((text) => JSON.parse(text)) };
};

test("a ring exchange and a polling rank across 4 suspended ranks", async () => {
  const outcome = await run("ring", 4);
  assert.equal(outcome.stop, null);
  assert.deepEqual(outcome.states, ["returned", "returned", "returned", "returned"]);
  outcome.results.forEach(({ out }, rank) => assert.deepEqual(out, [(rank + 3) % 4, (rank + 3) % 4]));
});

test("everyone sending first is a deadlock; the blocked stacks unwind", async () => {
  const outcome = await run("deadlock", 3);
  assert.equal(outcome.stop, "deadlock");
  assert.deepEqual(outcome.states, ["blocked", "blocked", "blocked"]);
  assert.deepEqual(outcome.waiting, [["send", 1], ["send", 2], ["send", 0]]);
  assert.deepEqual(outcome.results, [{ aborted: "send" }, { aborted: "send" }, { aborted: "send" }]);
});

test("waiting on a rank that has returned is a deadlock too, and the next case runs clean", async () => {
  const outcome = await run("recv_from_finished", 2);
  assert.equal(outcome.stop, "deadlock");
  assert.deepEqual(outcome.states, ["blocked", "returned"]);
  assert.equal((await run("ring", 2)).stop, null);
});

test("progress messages go to the main thread", () => {
  messages.length = 0;
  hub.ranks_started({ time_limit_s: 10 }, { name: "sample" });
  hub.case_done('{"name": "sample", "verdict": "accepted"}');
  assert.deepEqual(messages, [
    { type: "case-start", name: "sample", limit_s: 10 },
    { type: "case", case: { name: "sample", verdict: "accepted" } },
  ]);
});
