// One stream per submission (issue 41): the views that follow one submission (its pending result,
// the same submission opened again from the history) share one EventSource, a view that joins late
// sees where it stands, and every view gets the finished submission.
import assert from "node:assert/strict";
import { test } from "node:test";

const items = new Map();
globalThis.localStorage = {
  getItem: (key) => (items.has(key) ? items.get(key) : null),
  setItem: (key, value) => items.set(key, String(value)),
  removeItem: (key) => items.delete(key),
};

/** An EventSource the test drives: `emit(name, data)` delivers one event. */
class FakeSource {
  static opened = [];
  constructor(url) {
    this.url = url;
    this.listeners = {};
    this.closed = false;
    FakeSource.opened.push(this);
  }
  addEventListener(name, fn) {
    this.listeners[name] = fn;
  }
  emit(name, data) {
    this.listeners[name]({ data: JSON.stringify(data) });
  }
  close() {
    this.closed = true;
  }
}
globalThis.EventSource = FakeSource;

const { follow } = await import("../../web/src/app/api.js");

test("the views of one submission share one stream, and each sees every update", async () => {
  const seen = { result: [], past: [], again: [] };
  const result = follow(7, (u) => seen.result.push(`${u.status}:${u.cases.length}`));
  const past = follow(7, (u) => seen.past.push(`${u.status}:${u.cases.length}`));
  assert.equal(FakeSource.opened.length, 1);
  const [source] = FakeSource.opened;
  assert.equal(source.url, "/api/submissions/7/events");
  source.emit("status", { id: 7, status: "running" });
  source.emit("case", { name: "a" });
  const again = follow(7, (u) => seen.again.push(`${u.status}:${u.cases.length}`)); // opened again later
  assert.equal(FakeSource.opened.length, 1);
  source.emit("done", { id: 7, status: "done" });
  const done = await Promise.all([result, past, again]);
  assert.deepEqual(done.map((d) => d.status), ["done", "done", "done"]);
  assert.deepEqual(seen.result, ["running:0", "running:1"]);
  assert.deepEqual(seen.past, ["running:0", "running:1"]);
  assert.deepEqual(seen.again, ["running:1"]); // where it stood when it joined
  assert.ok(source.closed);

  follow(7, () => {}); // a finished follow is forgotten: following it again opens a new stream
  follow(8, () => {}); // and another submission has its own
  assert.equal(FakeSource.opened.length, 3);
});
