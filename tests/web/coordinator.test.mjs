// The rank coordinator alone, under Node: mailboxes, rendezvous, the deadlock rule.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ABORT, ANY_SOURCE, Coordinator } from "../../web/src/runner/coordinator.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

test("a message posted before the take is delivered at once, in order per (src, tag)", async () => {
  const c = new Coordinator(2, () => assert.fail("no deadlock"));
  c.post(0, 1, 0, "a");
  c.post(0, 1, 0, "b");
  assert.deepEqual(await c.take(1, 0, 0, "recv"), { src: 0, payload: "a" });
  assert.deepEqual(await c.take(1, ANY_SOURCE, 0, "recv"), { src: 0, payload: "b" });
});

test("a take waits for its message and the rank runs again when it comes", async () => {
  const c = new Coordinator(2, () => assert.fail("no deadlock"));
  const got = c.take(1, 0, 7, "recv");
  assert.equal(c.states[1], "blocked");
  assert.equal(c.waiting[1], "recv");
  c.post(0, 1, 3, "other tag");
  c.post(0, 1, 7, "mine");
  assert.deepEqual(await got, { src: 0, payload: "mine" });
  assert.equal(c.states[1], "running");
});

test("a rendezvous answers every member with the contributions in group order", async () => {
  const c = new Coordinator(3, () => assert.fail("no deadlock"));
  const first = c.rendezvous(2, "g0:1", 3, 2, "z", "all_reduce");
  const second = c.rendezvous(0, "g0:1", 3, 0, "x", "all_reduce");
  const last = await c.rendezvous(1, "g0:1", 3, 1, "y", "all_reduce");
  assert.deepEqual(last, ["x", "y", "z"]);
  assert.deepEqual(await first, ["x", "y", "z"]);
  assert.deepEqual(await second, ["x", "y", "z"]);
  assert.deepEqual(c.states, ["running", "running", "running"]);
});

test("deadlock: every unfinished rank blocked, reported once; abort wakes them with ABORT", async () => {
  let reports = 0;
  const c = new Coordinator(3, () => reports++);
  c.finish(2, "returned");
  const a = c.take(0, 1, 0, "recv");
  const b = c.take(1, 0, 0, "recv");
  await tick();
  assert.equal(reports, 1);
  assert.deepEqual(c.states, ["blocked", "blocked", "returned"]);
  c.abortBlocked();
  assert.equal(await a, ABORT);
  assert.equal(await b, ABORT);
  assert.deepEqual(c.states, ["blocked", "blocked", "returned"], "the states at the stop are kept");
});

test("no deadlock while a woken rank has yet to run, nor once all have finished", async () => {
  const c = new Coordinator(2, () => assert.fail("no deadlock"));
  const waiting = c.take(1, 0, 0, "recv");
  c.post(0, 1, 0, "x");
  c.finish(0, "returned");
  await tick();
  await waiting;
  c.finish(1, "returned");
  await tick();
});
