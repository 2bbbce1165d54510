// The runner's JavaScript alone, under Node: the JSPI scheduler (which matches nothing: it
// resumes the ranks the switch woke and aborts the blocked ones once the case is over) and the
// workers path's shared-memory channel between rank workers and the judge's switch.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { ABORT, RESUME, Scheduler } from "../../web/src/runner/coordinator.js";
import { newBell, newChannel, Switchboard } from "../../web/src/runner/sync-call.js";

/** A stand-in for the Python case: the test says whom the switch woke and when the case is over. */
class FakeCase {
  woken = [];
  over = false;
  take_woken() {
    return this.woken.splice(0);
  }
  check() {
    return this.over;
  }
}

const pending = Symbol("pending");
const peek = (promise) => Promise.race([promise, new Promise((r) => setTimeout(() => r(pending), 5))]);

test("a blocked rank stays blocked until the switch wakes it, then resumes", async () => {
  const c = new FakeCase();
  const s = new Scheduler(c);
  const zero = s.block(0);
  const one = s.block(1);
  assert.equal(await peek(zero), pending);
  c.woken.push(1);
  s.step(); // e.g. rank 2 ended after a send that completed rank 1's receive
  assert.equal(await peek(one), RESUME);
  assert.equal(await peek(zero), pending);
  c.woken.push(0);
  const two = s.block(2); // rank 2 blocks: the ranks woken meanwhile resume
  assert.equal(await peek(zero), RESUME);
  assert.equal(await peek(two), pending);
});

test("a polling rank gives the woken ranks their turn first", async () => {
  const c = new FakeCase();
  const s = new Scheduler(c);
  const order = [];
  s.block(1).then(() => order.push("woken rank"));
  c.woken.push(1);
  await s.pause().then((value) => order.push(value === RESUME ? "poller" : "aborted"));
  await null;
  assert.deepEqual(order, ["woken rank", "poller"]);
});

test("once the case is over, every blocked rank is resumed with ABORT, and so is a poller", async () => {
  const c = new FakeCase();
  const s = new Scheduler(c);
  const blocked = [s.block(0), s.block(2)];
  c.over = true;
  const last = s.block(1);
  assert.deepEqual(await Promise.all([...blocked, last]), [ABORT, ABORT, ABORT]);
  assert.equal(await s.pause(), ABORT);
  c.woken.push(5);
  s.step(); // over: the switch is not asked again
  assert.deepEqual(c.woken, [5]);
});

test("a rank woken without being blocked is the runner's bug, said loudly", () => {
  const c = new FakeCase();
  const s = new Scheduler(c);
  c.woken.push(3);
  assert.throws(() => s.step(), /rank 3 was woken but is not blocked/);
});

// ---- the workers path's channel ----------------------------------------------------------

const RANK = `
import { parentPort, workerData } from "node:worker_threads";
import { requester } from ${JSON.stringify(new URL("../../web/src/runner/sync-call.js", import.meta.url).href)};
const request = requester(workerData.channel, workerData.bell);
const answers = workerData.messages.map((m) => new TextDecoder().decode(request(new TextEncoder().encode(m))));
parentPort.postMessage(answers);
`;

function rank(channel, bell, messages) {
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(RANK)}`), {
    workerData: { channel, bell, messages },
  });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

test("ranks' requests reach the judge whole, each answer its own rank, one request at a time", async () => {
  const bell = newBell();
  const channels = [newChannel(), newChannel()];
  const board = new Switchboard(channels, bell);
  const big = "x".repeat(1 << 20);
  const done = [rank(channels[0], bell, ["a0", big]), rank(channels[1], bell, ["a1"])];
  const text = (r) => new TextDecoder().decode(board.read(r));
  const first = board.next(10_000);
  assert.notEqual(first, -1);
  // unanswered (a rank blocked in wait): its channel is never read again meanwhile
  const second = board.next(10_000);
  assert.equal(second, 1 - first);
  assert.equal(text(second), `a${second}`);
  assert.equal(board.next(50), -1);
  board.reply(second, new TextEncoder().encode(`A${second}`));
  board.reply(first, new TextEncoder().encode(`A${first}`));
  assert.equal(board.next(10_000), 0); // rank 0's second request
  assert.equal(text(0), big);
  board.reply(0, new TextEncoder().encode("BIG"));
  assert.deepEqual(await Promise.all(done), [["A0", "BIG"], ["A1"]]);
  assert.equal(board.next(10), -1);
});
