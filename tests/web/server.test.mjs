// Submit from the browser to the judge server (`python -m server`, which also serves the app):
// register, submit, the official verdict streamed back, the history.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { exerciseFile, openPage, setCode, startApp, startServer } from "./harness.mjs";

let app, server;
before(async () => {
  app = await startApp();
  server = await startServer();
});
after(async () => {
  server?.close();
  await app?.close();
});

test("register, submit the reference, get the server's verdict and see it in the history", async () => {
  const page = await openPage(app.browser, `${server.url}#/ring-allreduce`);
  await page.click("#login");
  await page.fill('#auth-form input[name="username"]', `learner${Date.now() % 100000}`);
  await page.fill('#auth-form input[name="password"]', "correct horse battery");
  await page.click('#auth-form button[value="register"]');
  await page.waitForSelector("#logout");
  await setCode(page, exerciseFile("ring-allreduce", "solution.py"));
  await page.click("#submit");
  const result = await page.waitForSelector(".result[data-verdict]:not([data-verdict='queued']):not([data-verdict='running'])", { timeout: 120_000 });
  assert.equal(await result.getAttribute("data-verdict"), "accepted");
  assert.match(await result.innerText(), /torch/);
  await page.waitForSelector(".history li");
  assert.match(await page.textContent(".history"), /#\d+/);
  await page.close();
});
