// A 503 `busy` answer (every hashing slot taken, the queue full: the server did nothing) is asked
// again after its Retry-After; every other error, and a call that asks for no retries, is not.
import assert from "node:assert/strict";
import { test } from "node:test";

const items = new Map();
globalThis.localStorage = {
  getItem: (key) => (items.has(key) ? items.get(key) : null),
  setItem: (key, value) => items.set(key, String(value)),
  removeItem: (key) => items.delete(key),
};

/** A fetch that answers `answers` in turn (each [status, body]) and records every request. */
function serve(answers) {
  const asked = [];
  globalThis.fetch = async (path, init) => {
    asked.push({ path, method: init.method, body: init.body });
    const [status, body] = answers[Math.min(asked.length, answers.length) - 1];
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "retry-after": "0" } });
  };
  return asked;
}

const busy = [503, { code: "busy", detail: "the server is busy", message_zh: "服务器繁忙", retry_after: 0 }];
const { BUSY_RETRIES, call, HttpError } = await import("../../web/src/app/api.js");

test("a busy answer is asked again, with the same request, until one is served", async () => {
  const asked = serve([busy, busy, [201, { token: "t" }]]);
  assert.deepEqual(await call("POST", "/api/auth/register", { username: "u", password: "p" }), { token: "t" });
  assert.equal(asked.length, 3);
  assert.ok(asked.every((a) => a.method === "POST" && a.body === asked[0].body));
});

test("busy every time: the error after BUSY_RETRIES more tries", async () => {
  const asked = serve([busy]);
  await assert.rejects(call("POST", "/api/submissions", {}), (e) => e instanceof HttpError && e.code === "busy");
  assert.equal(asked.length, 1 + BUSY_RETRIES);
});

test("no retry when the caller asks for none, nor for any other error", async () => {
  let asked = serve([busy]);
  await assert.rejects(call("POST", "/api/auth/password-check", {}, { retries: 0 }), (e) => e.code === "busy");
  assert.equal(asked.length, 1);
  for (const answer of [[503, { code: "database_unavailable", detail: "down", retry_after: 0 }], [429, { code: "rate_limited", retry_after: 0 }], [409, { code: "username_taken" }]]) {
    asked = serve([answer]);
    await assert.rejects(call("POST", "/api/auth/register", {}), (e) => e.code === answer[1].code);
    assert.equal(asked.length, 1, answer[1].code);
  }
});
