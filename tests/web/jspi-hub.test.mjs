// The hubs under Node with the kernel's Python: one case's ranks on the case's one switch, as
// suspended stacks (JSPI) and as one worker each (the workers path, on worker threads). For each
// small program the case's facts must be CPython's simulation's: how each rank ended, why the
// case stopped, what was printed, and the switch's record (each rank's calls in order, the
// messages, the collectives, refusals, who waits on whom).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { bootPython } from "../../web/src/runner/boot.js";
import { JspiHub } from "../../web/src/runner/jspi-hub.js";
import { WorkersHub } from "../../web/src/runner/workers-hub.js";
import { dist, python, repo } from "./harness.mjs";
import { installWorker } from "./web-worker.mjs";

const PROGRAMS = {
  ring_and_poll: [4, `
import torch
import torch.distributed as dist

def f(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    got = torch.zeros_like(t)
    s = dist.isend(t, (rank + 1) % n)
    dist.recv(got, (rank - 1) % n)
    s.wait()
    flag = torch.zeros(1)
    if rank == 0:
        w = dist.irecv(flag, n - 1, tag=7)
        while not w.is_completed():
            pass
    if rank == n - 1:
        dist.send(torch.ones(1), 0, tag=7)
    print("rank", rank, "got", got.tolist())
    return got + flag
`],
  everyone_sends_first: [3, `
import torch.distributed as dist

def f(t):
    dist.send(t, (dist.get_rank() + 1) % dist.get_world_size())
    return t
`],
  recv_from_returned: [2, `
import torch.distributed as dist

def f(t):
    if dist.get_rank() == 0:
        dist.recv(t, 1)
    return t
`],
  failure_not_deadlock: [3, `
import torch.distributed as dist

def f(t):
    if dist.get_rank() == 1:
        raise ValueError("rank 1 gives up")
    dist.recv(t, 1)
    return t
`],
  mismatched_collectives: [2, `
import torch.distributed as dist

def f(t):
    if dist.get_rank() == 0:
        dist.all_reduce(t)
    else:
        dist.recv(t, 0)
    return t
`],
  groups_and_collectives: [4, `
import torch
import torch.distributed as dist

def f(t):
    rank = dist.get_rank()
    low = dist.new_group([0, 1])
    if rank < 2:
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=low)
    dist.broadcast(t, 3)
    out = torch.empty(10)
    dist.all_to_all_single(out, torch.arange(4 * (rank + 1), dtype=torch.float32) + rank,
                           output_split_sizes=[1, 2, 3, 4], input_split_sizes=[rank + 1] * 4)
    who = torch.zeros(1)
    if rank == 0:
        froms = []
        for _ in range(3):
            w = dist.irecv(who)
            w.wait()
            froms.append(w.source_rank())
        print(sorted(froms))
    else:
        dist.send(torch.ones(1) * rank, 0)
    return t + out[:1]
`],
  forbidden: [2, `
import torch.distributed as dist

def f(t):
    dist.all_reduce(t)
    return t
`],
  prints_too_much: [2, `
def f(t):
    for i in range(1000):
        print("x" * 100)
    return t
`],
  // each round computes a while, so that no runtime makes the switch's 20 000 requests in the
  // case's second: the case ends at its time limit, however fast the machine is
  ping_pong_forever: [2, `
import torch.distributed as dist

def f(t):
    other = 1 - dist.get_rank()
    while True:
        sum(range(100000))
        if dist.get_rank() == 0:
            dist.send(t, other)
            dist.recv(t, other)
        else:
            dist.recv(t, other)
            dist.send(t, other)
`],
};

// Pyodide's stack switching breaks when the collector runs while rank stacks are suspended
const GC_STATE = `
import gc

def f(t):
    print("collector on:", gc.isenabled())
    return t
`;

// timing decides which rank prints past the limit, or where the time limit finds a rank
const ONLY_THE_STOP = new Set(["prints_too_much", "ping_pong_forever"]);
const ALL_OPS = ["send", "recv", "all_reduce", "broadcast", "all_to_all"];

const cases = Object.entries(PROGRAMS).map(([name, [world, code]]) => ({
  job: {
    function: "f", output: "return", code, filename: "learner.py", output_limit_bytes: 4000,
    allowed: name === "forbidden" ? ["send", "recv"] : ALL_OPS,
    time_limit_s: name === "ping_pong_forever" ? 1 : 10,
  },
  spec: {
    name, world_size: world, sample: true, params: {},
    inputs: Array.from({ length: world }, (_, r) => ({ shape: [4], dtype: "float32", data: [r, r + 1, r + 2, r + 3] })),
  },
}));

/** What must not depend on the runtime (request ids and logical times do: they follow the interleaving). */
function facts(raw) {
  if (ONLY_THE_STOP.has(raw.name)) return { stop: raw.stop };
  const { requests, messages, collectives, refused, deadlock, groups } = raw.trace;
  const byId = new Map(requests.map((q) => [q.id, q]));
  const call = (q) => [q.rank, q.kind, q.group, q.peer, q.tag, q.bytes, q.sent, q.dtype, q.line, q.api, q.graded];
  const sorted = (rows) => rows.map((row) => JSON.stringify(row)).sort();
  // Pyodide's newer Python marks the failing expression under a traceback line (~~~^^^)
  const ranks = raw.ranks.map((r) => r.error ? { ...r, error: { ...r.error, traceback: r.error.traceback.replace(/^ *[~^]+ *\n/gm, "") } } : r);
  return {
    stop: raw.stop,
    ranks,
    stdout: raw.stdout,
    groups,
    calls: [...requests].sort((a, b) => a.rank - b.rank || a.id - b.id).map(call),
    messages: sorted(messages.map((m) => [m.group, m.src, m.dst, m.tag, m.bytes])),
    collectives: sorted(collectives.map((c) => [c.kind, c.group, c.seq, c.ranks, c.bytes, c.size, c.root, c.op])),
    refused: sorted(refused.map((r) => [r.rank, r.kind, r.api, r.line])),
    deadlock: sorted(deadlock.map((e) => [e.rank, e.on, ...call(byId.get(e.request))])),
  };
}

const RUN = `
import json
from cjudge_web.judge import run_case

def run_json(hub, job_json, spec_json):
    return json.dumps(run_case(hub, json.loads(job_json), json.loads(spec_json)))
`;

let cpython;
before(() => {
  const env = { ...process.env, PYTHONPATH: `${repo}practice` };
  const out = execFileSync(python(), [`${repo}tests/web/sim_verdicts.py`, "--raw"], { input: JSON.stringify(cases), env, maxBuffer: 1 << 28 });
  cpython = Object.fromEntries(JSON.parse(out).map((raw) => [raw.name, raw]));
});

// Pyodide with the app's lock file and the kernel's wheels (npm run build)
const pyodideUrl = `${dist}/pyodide/`;

for (const mode of ["jspi", "workers"]) {
  describe(`ranks ${mode === "jspi" ? "as suspended stacks (JSPI)" : "in workers of their own"}`, () => {
    let hub, run, gcEnabled;
    const messages = [];
    before(async () => {
      const py = await bootPython(pyodideUrl);
      py.runPython(RUN);
      const runJson = py.globals.get("run_json");
      gcEnabled = () => py.runPython("import gc; gc.isenabled()");
      if (mode === "jspi") {
        hub = new JspiHub((m) => messages.push(m));
        run = (job, spec) => runJson.callPromising(hub, job, spec);
      } else {
        installWorker();
        hub = new WorkersHub(pyodideUrl, (m) => messages.push(m), py.pyimport("cjudge_web.wire").serve);
        await hub.started;
        run = async (job, spec) => runJson(hub, job, spec);
      }
    });
    after(() => hub?.worker?.terminate());

    for (const { job, spec } of cases) {
      test(`${spec.name}: the facts of CPython's simulation`, async () => {
        const raw = JSON.parse(await run(JSON.stringify(job), JSON.stringify(spec)));
        assert.deepEqual(facts(raw), facts(cpython[spec.name]));
        assert.equal(raw.stop, { ping_pong_forever: "time_limit", prints_too_much: "output_limit" }[spec.name] ?? raw.stop);
      });
    }

    test("each case tells the main thread its ranks started (the watchdog starts then)", () => {
      const started = messages.filter((m) => m.type === "case-start").map((m) => m.name);
      assert.deepEqual(started, cases.map((c) => c.spec.name));
      assert.equal(messages.find((m) => m.name === "ping_pong_forever").limit_s, 1);
    });

    if (mode === "jspi") {
      test("the cycle collector is off while a case's stacks may be suspended, on again after", async () => {
        const [job, spec] = [{ ...cases[0].job, code: GC_STATE }, { ...cases[0].spec, name: "gc_state" }];
        const raw = JSON.parse(await run(JSON.stringify(job), JSON.stringify(spec)));
        const lines = Array.from({ length: spec.world_size }, (_, r) => `[rank ${r}] collector on: False`);
        assert.deepEqual(raw.stdout.trim().split("\n").sort(), lines);
        assert.equal(gcEnabled(), true);
      });
    }
  });
}

test("a graded case goes to the main thread as an object", () => {
  const messages = [];
  new JspiHub((m) => messages.push(m)).case_done('{"name": "sample", "verdict": "accepted"}');
  assert.deepEqual(messages, [{ type: "case", case: { name: "sample", verdict: "accepted" } }]);
});
