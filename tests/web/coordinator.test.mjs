// The rank coordinator alone, under Node: gloo's matching rules and the deadlock rule.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ABORT, Coordinator } from "../../web/src/runner/coordinator.js";

const tick = () => new Promise((r) => setTimeout(r, 5));
const never = () => assert.fail("no deadlock here");

test("a send matches the oldest posted receive; the receiver gets source and payload", async () => {
  const c = new Coordinator(2, never);
  const s1 = c.post_send(0, 1, "t", "a");
  const s2 = c.post_send(0, 1, "t", "b");
  assert.equal(c.test(s1), false);
  const r1 = c.post_recv(1, 0, "t");
  const r2 = c.post_recv(1, null, "t");
  assert.equal(c.test(s1), true);
  assert.deepEqual(c.wait(1, r1, "recv"), [0, "a"]);
  assert.deepEqual(c.wait(1, r2, "recv"), [0, "b"]);
  assert.equal(c.wait(0, s1, "send"), undefined);
  assert.equal(c.wait(0, s2, "send"), undefined);
});

test("tags and sources keep messages apart", async () => {
  const c = new Coordinator(3, never);
  const r = c.post_recv(2, 1, "x");
  c.post_send(0, 2, "x", "from 0");
  c.post_send(1, 2, "y", "other tag");
  assert.equal(c.test(r), false);
  c.post_send(1, 2, "x", "mine");
  assert.deepEqual(c.wait(2, r, "recv"), [1, "mine"]);
});

test("a wait blocks the rank until the match, and it runs again after", async () => {
  const c = new Coordinator(2, never);
  const r = c.post_recv(1, 0, "t");
  const got = c.wait(1, r, "recv");
  assert.equal(c.states[1], "blocked");
  assert.deepEqual(c.waiting[1], ["recv", 0]);
  const s = c.post_send(0, 1, "t", "x");
  assert.deepEqual(await got, [0, "x"]);
  assert.equal(c.states[1], "running");
  assert.equal(c.wait(0, s, "send"), undefined);
});

test("both ranks sending first is a deadlock (gloo's rendezvous), reported once", async () => {
  let reports = 0;
  const c = new Coordinator(2, () => reports++);
  const a = c.wait(0, c.post_send(0, 1, "t", "x"), "send");
  const b = c.wait(1, c.post_send(1, 0, "t", "y"), "send");
  await tick();
  assert.equal(reports, 1);
  assert.deepEqual(c.waiting, [["send", 1], ["send", 0]]);
  c.abortBlocked();
  assert.equal(await a, ABORT);
  assert.equal(await b, ABORT);
  assert.deepEqual(c.states, ["blocked", "blocked"], "the states at the stop are kept");
});

test("waiting on a finished rank is a deadlock; its posted sends stay receivable", async () => {
  let reports = 0;
  const c = new Coordinator(3, () => reports++);
  c.post_send(2, 0, "t", "left behind");
  c.finish(2, "returned");
  assert.deepEqual(c.wait(0, c.post_recv(0, 2, "t"), "recv"), [2, "left behind"]);
  c.wait(0, c.post_recv(0, 1, "t"), "recv");
  c.finish(1, "returned");
  await tick();
  assert.equal(reports, 1);
  assert.deepEqual(c.states, ["blocked", "returned", "returned"]);
});

test("no deadlock while a woken rank has yet to run, nor once all have finished", async () => {
  const c = new Coordinator(2, never);
  const waiting = c.wait(1, c.post_recv(1, 0, "t"), "recv");
  c.post_send(0, 1, "t", "x");
  c.finish(0, "returned");
  await tick();
  await waiting;
  c.finish(1, "returned");
  await tick();
});
