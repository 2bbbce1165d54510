// Submit from the browser to the judge server (`python -m server`, which also serves the app):
// register, submit, the official verdict streamed back, the history.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { editorText, eventually, exerciseFile, openPage as openAppPage, setCode, SHOTS, startApp, startServer } from "./harness.mjs";

let app, server;
before(async () => {
  app = await startApp();
  server = await startServer();
});
after(async () => {
  server?.close();
  await app?.close();
});

// The server hashes passwords at a lower CPU priority than grading (docs/server.md): on a loaded
// machine a sign-up or log-in can take far longer than Playwright's default 30 s wait.
const SERVER_WAIT_MS = 120_000;

/** A page of the app served by the judge, whose waits allow for the server's slow hashing. */
async function openPage(browser, url) {
  const page = await openAppPage(browser, url);
  page.setDefaultTimeout(SERVER_WAIT_MS);
  return page;
}

test("register, submit the reference, get the server's verdict and see it in the history", async () => {
  const page = await openPage(app.browser, `${server.url}#/ring-allreduce`);
  await page.click("#login");
  await page.click("#auth-mode-register");
  await page.fill('#auth-form input[name="username"]', `learner${Date.now() % 100000}`);
  await page.fill('#auth-form input[name="password"]', "correct horse battery staple");
  await page.click("#auth-submit");
  await page.waitForSelector("#logout");
  await setCode(page, exerciseFile("ring-allreduce", "solution.py"));
  await page.click("#submit");
  const result = await page.waitForSelector(".result[data-verdict]:not([data-verdict='queued']):not([data-verdict='running'])");
  await eventually(assert.equal, async () => await result.getAttribute("data-verdict"), "accepted");
  await eventually(assert.match, async () => await result.innerText(), /torch/);
  await page.waitForSelector(".history li");
  await eventually(assert.match, async () => await page.textContent(".history"), /#\d+/);
  await page.close();
});

const REFERENCE = exerciseFile("ring-allreduce", "solution.py");
const name = (tag) => `${tag}${Date.now() % 1000000}`;

/** Fill the open auth dialog and press Enter in the password field. */
async function fillAndEnter(page, username, password) {
  await page.fill("#auth-username", username);
  await page.fill("#auth-password", password);
  await page.press("#auth-password", "Enter");
}

test("accounts: Log in and Register are separate modes, field errors from 422s, API errors translated (en, zh)", async () => {
  const page = await openPage(app.browser, `${server.url}#/ring-allreduce`);
  const user = name("alice");
  await page.click("#login");
  await eventually(assert.equal, async () => await page.getAttribute("#auth-mode-login", "aria-selected"), "true");
  await eventually(assert.equal, async () => await page.isVisible("#password-rule"), false, "the rules are for Register");
  await fillAndEnter(page, user, "correct horse battery");
  await page.waitForSelector("#auth-error:not(:empty)");
  await eventually(assert.equal, async () => await page.textContent("#auth-error"), "Wrong username or password.");
  await page.click("#auth-mode-register");
  await eventually(assert.match, async () => await page.textContent("#password-rule"), /At least 8 characters/);
  await eventually(assert.equal, async () => await page.textContent("#auth-submit"), "Create account");
  await fillAndEnter(page, user, "short");
  await page.waitForSelector("#password-error:not(:empty)");
  await eventually(assert.match, async () => await page.textContent("#password-error"), /at least 8 characters/);
  await eventually(assert.equal, async () => await page.getAttribute("#auth-password", "aria-invalid"), "true");
  await eventually(assert.equal, async () => await page.textContent("#auth-error"), "", "no raw JSON");
  await fillAndEnter(page, user, "correct horse battery staple");
  await page.waitForSelector("#logout");
  await page.click("#logout");

  await page.click("#lang-toggle");
  await page.click("#login");
  await page.click("#auth-mode-register");
  await fillAndEnter(page, user, "correct horse battery staple");
  await page.waitForSelector("#auth-error:not(:empty)");
  await eventually(assert.equal, async () => await page.textContent("#auth-error"), "这个用户名已被占用：请换一个，或直接登录。");
  await fillAndEnter(page, "x", "correct horse battery staple");
  await page.waitForSelector("#username-error:not(:empty)");
  await eventually(assert.match, async () => await page.textContent("#username-error"), /3–32 个字母/);
  await page.close();
});

// The reference, judged slowly (each rank sleeps 1 s a case, 7 cases): the learner has left the
// ring's page long before its verdict comes, however fast the server announces it.
const SLOW_REFERENCE = REFERENCE.replace(
  "    rank, n = dist.get_rank(), dist.get_world_size()",
  "    import time\n    time.sleep(1.0)\n    rank, n = dist.get_rank(), dist.get_world_size()");

test("Submit while logged out logs in, then submits; the verdict lands on its own exercise; history shows the submitted code", async () => {
  const page = await openPage(app.browser, `${server.url}#/ring-allreduce`);
  assert.notEqual(SLOW_REFERENCE, REFERENCE);
  const submitted = `# the submitted version\n${SLOW_REFERENCE}`;
  await setCode(page, submitted);
  await page.click("#submit");
  await page.waitForSelector("#auth-dialog[open]");
  await eventually(assert.match, async () => await page.textContent("#auth-reason"), /submitted right after/);
  await page.click("#auth-mode-register");
  await fillAndEnter(page, name("bob"), "correct horse battery staple");
  await page.waitForSelector(".result[data-verdict]");
  // Open the transpose while the ring is judged: the ring's verdict waits in the sidebar.
  await page.click('#exercise-list a[href="#/alltoall-transpose"]');
  await page.waitForSelector('#exercise-list li[data-exercise="ring-allreduce"] .waiting .verdict.v-accepted', { timeout: 120_000 });
  await eventually(assert.equal, async () => await page.getAttribute('#exercise-list li[data-exercise="ring-allreduce"]', "data-progress"), "solved");
  await eventually(assert.equal, async () => await page.getAttribute('#exercise-list li[data-exercise="alltoall-transpose"]', "data-progress"), "notStarted");
  await eventually(assert.equal, async () => await page.locator("#results .result").count(), 0);
  assert.deepEqual(page.errors, [], "no console error (status_done)");

  await page.click('#exercise-list a[href="#/ring-allreduce"]');
  await eventually(assert.equal, async () => await page.getAttribute(".result", "data-verdict"), "accepted");
  await eventually(assert.equal, async () => await page.locator(".result .stdout").count(), 0, "no Output pane: the learner printed nothing");
  await setCode(page, "# today's code\n");
  await page.click(".history li button");
  await page.waitForSelector('#work[data-view="past"] .past-code .cm-line');
  await eventually(assert.equal, async () => await page.isVisible("#editor"), false);
  await eventually(assert.equal, async () => await editorText(page, "#past .past-code"), submitted);
  await eventually(assert.equal, async () => await page.getAttribute("#past .past-code .cm-content", "contenteditable"), "false");
  await eventually(assert.match, async () => await page.textContent("#past .past-head"), /Submission #\d+.*Accepted.*bytes of code/);
  await page.click("#past-diff");
  await eventually(assert.match, async () => await page.textContent("#past pre.diff"), /- # the submitted version[\s\S]*\+ # today's code/);
  await page.screenshot({ path: `${SHOTS}/history.png`, fullPage: true });
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#past-load");
  await page.waitForSelector('#work[data-view="edit"]');
  await eventually(assert.equal, async () => await editorText(page), submitted);
  await page.close();
});

test("Register shows the judge's own password verdict while typing, with its reason, in the app's language", async () => {
  const page = await openPage(app.browser, `${server.url}#/ring-allreduce`);
  const signUps = [];
  page.on("request", (request) => request.url().endsWith("/api/auth/register") && signUps.push(request));
  await page.click("#login");
  await page.click("#auth-mode-register");
  await page.fill("#auth-username", name("dana"));
  await page.locator("#auth-password").pressSequentially("password123");
  await page.waitForSelector('#password-strength[data-verdict="weak"]');
  const weak = await page.textContent("#password-strength");
  assert.match(weak, /^Too easy to guess: the judge refuses it \(strength [01] of 4; it needs 2\)\./);
  assert.match(weak, /common|guess/i, `zxcvbn's reason is shown: ${weak}`);
  assert.equal(signUps.length, 0, "the verdict came before any sign-up");
  assert.equal(await page.isVisible("#password-strength"), true);

  await page.fill("#auth-password", "");
  await page.locator("#auth-password").pressSequentially("violet tractor ninety umbrella");
  await page.waitForSelector('#password-strength[data-verdict="acceptable"]');
  await eventually(assert.equal, async () => await page.textContent("#password-strength"), "Strong enough: the judge accepts this password.");
  await page.click("#auth-mode-login");
  await eventually(assert.equal, async () => await page.isVisible("#password-strength"), false, "Log in judges nothing");
  await page.click("#auth-cancel");

  await page.click("#lang-toggle");
  await page.click("#login");
  await page.click("#auth-mode-register");
  await page.fill("#auth-password", "");
  await page.locator("#auth-password").pressSequentially("password123");
  await page.waitForSelector('#password-strength[data-verdict="weak"]');
  const zh = await page.textContent("#password-strength");
  assert.match(zh, /^太容易被猜到：评测系统会拒绝它/);
  assert.doesNotMatch(zh, /[A-Za-z]{4,}/, `all of it in Chinese: ${zh}`);
  await page.press("#auth-password", "Enter");
  await page.waitForSelector("#password-error:not(:empty)");
  assert.doesNotMatch(await page.textContent("#password-error"), /[A-Za-z]{4,}/, "the refusal's reason in Chinese too");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a busy server's sign-up is asked again after its Retry-After; the button is busy meanwhile", async () => {
  const page = await openPage(app.browser, `${server.url}#/ring-allreduce`);
  let asked = 0;
  let release;
  const released = new Promise((resolve) => (release = resolve));
  await page.route("**/api/auth/register", async (route) => {
    if (++asked === 1) {
      return route.fulfill({ status: 503, headers: { "retry-after": "1" }, contentType: "application/json",
        body: JSON.stringify({ code: "busy", detail: "the server is busy; try again in a moment", message_zh: "服务器繁忙，请稍后再试", retry_after: 1 }) });
    }
    await released; // the retry waits here until the test has seen the busy button
    return route.continue();
  });
  await page.click("#login");
  await page.click("#auth-mode-register");
  await fillAndEnter(page, name("erin"), "correct horse battery staple");
  await page.waitForSelector('#auth-submit[aria-busy="true"]:disabled');
  await eventually(assert.equal, async () => asked, 2, "asked again after the busy answer");
  await page.press("#auth-password", "Enter"); // a second Enter while it runs sends nothing
  release();
  await page.waitForSelector("#logout");
  assert.equal(asked, 2);
  assert.equal(await page.textContent("#auth-error"), "", "the busy answer was never shown");
  assert.deepEqual(page.errors, []);
  await page.close();
});

// last: it spends this address's sign-up quota, and a sign-up after it would be refused for that
test("too many sign-ups: the wait from retry_after, in the app's language", async () => {
  const page = await openPage(app.browser, `${server.url}#/`);
  await page.click("#lang-toggle");
  await page.click("#login");
  await page.click("#auth-mode-register");
  for (let i = 0; i < 12; i++) { // the quota is 10 a minute, and earlier tests' sign-ups may have aged out
    await fillAndEnter(page, name(`c${i}x`), "correct horse battery staple");
    await page.waitForFunction(() => document.querySelector("#auth-error")?.textContent || !document.querySelector("#auth-dialog").open);
    if (await page.textContent("#auth-error")) break;
    await page.click("#logout");
    await page.click("#login");
    await page.click("#auth-mode-register");
  }
  await eventually(assert.match, async () => await page.textContent("#auth-error"), /^尝试太频繁：请在 \d+ 秒后重试。$/);
  await page.close();
});
