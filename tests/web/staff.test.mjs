// The course's staff on the course page against a real judge server: a learner's run view two
// clicks from the progress grid and from a leaderboard, the admin adding staff, a late
// submission, and a regrade whose history both staff and the learner see.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch } from "../../web/scripts/chromium.mjs";
import { apiCall, axeViolations, eventually, exerciseFile, SHOTS, startServer } from "./harness.mjs";

const ADMIN = { username: "course_admin", password: "a-long-admin-password-9" };
const PASSWORD = "correct horse battery staple";
const RING = "ring-allreduce";
let server, browser, admin, ann;

const call = (method, path, token, body) => apiCall(server.url, method, path, token, body);

/** Submit `code` as `who` and wait for its verdict. */
async function judged(who, code) {
  const { id } = await call("POST", "/api/submissions", who.token, { exercise: RING, code });
  for (let i = 0; i < 900; i++) {
    const s = await call("GET", `/api/submissions/${id}`, who.token);
    if (s.status === "done") return s;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`submission ${id} was not judged`);
}

/** The course page at `hash` as `who` (the main app's token and user). */
async function coursePage(who, hash) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, bypassCSP: true }); // axe-core is injected
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("dialog", (dialog) => dialog.accept()); // the regrade's "judge N again?"
  await page.addInitScript(([token, user]) => {
    localStorage.setItem("cjudge:token", JSON.stringify(token));
    localStorage.setItem("cjudge:user", JSON.stringify(user));
  }, [who.token, who.username]);
  await page.goto(`${server.url}course.html${hash}`);
  return page;
}

before(async () => {
  server = await startServer({ CJUDGE_ADMIN_USERNAME: ADMIN.username, CJUDGE_ADMIN_PASSWORD: ADMIN.password,
    CJUDGE_RATE_PER_MINUTE: "100" });
  browser = await launch();
  admin = { ...ADMIN, token: (await call("POST", "/api/auth/login", null, ADMIN)).token };
  const username = `ann${Date.now() % 100000}`;
  ann = { username, token: (await call("POST", "/api/auth/register", null, { username, password: PASSWORD })).token };
  ann.first = await judged(ann, exerciseFile(RING, "solution.py"));
});
after(async () => {
  await browser?.close();
  server?.close();
});

/** On a submission's view: its code and run view as the learner saw them. */
async function seesTheRun(page, id) {
  await page.waitForSelector(`h1:has-text("${id}")`);
  assert.equal(await page.textContent(".submission-head .verdict"), "Accepted");
  assert.doesNotMatch(await page.textContent("#course"), /null|undefined|exercise\./);
  await page.waitForSelector("#submission-code");
  assert.equal(await page.textContent("#submission-code"), exerciseFile(RING, "solution.py"));
  await page.waitForSelector(".result[data-verdict='accepted'] details.timeline");
}

test("staff reach a learner's run view in two clicks from the grid and from a leaderboard", async () => {
  assert.equal(ann.first.verdict, "accepted");
  const page = await coursePage(admin, "#/staff");
  await page.click(`#progress-grid a[data-exercise="${RING}"]`);
  await page.click(`#learner-submissions a[href="#/submission/${ann.first.id}"]`);
  await seesTheRun(page, ann.first.id);
  await page.goto(`${server.url}course.html#/leaderboard/${RING}`);
  const link = await page.waitForSelector("#leaderboard tr[data-rank='1'] a.learner-link");
  assert.match(await link.innerText(), new RegExp(`${ann.username} \\(anonymous\\)`)); // staff see who it is
  await link.click();
  await page.click(`#learner-submissions a[href="#/submission/${ann.first.id}"]`);
  await seesTheRun(page, ann.first.id);
  assert.deepEqual(await axeViolations(page), [], "the submission view");
  await page.screenshot({ path: `${SHOTS}/course-submission-1400.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 }); // a phone: the code and cases scroll in their boxes
  await eventually(assert.ok, async () => await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the admin adds staff on the staff page; a learner's page is refused", async () => {
  const username = `tara${Date.now() % 100000}`;
  const tara = { username, token: (await call("POST", "/api/auth/register", null, { username, password: PASSWORD })).token };
  const refused = await coursePage(tara, "#/staff");
  await eventually(assert.match, async () => await (await refused.waitForSelector("#course-error")).innerText(), /for staff/);
  await refused.close();
  const page = await coursePage(admin, "#/staff");
  await page.fill("#staff-username", username);
  await page.click("#add-staff button[type=submit]");
  await page.waitForSelector(`#staff-list li[data-username="${username}"]`);
  await eventually(assert.match, async () => await page.textContent("#staff-note"), new RegExp(`${username} is now staff`));
  // a deadline set on the page: none of the submissions so far is late
  await page.selectOption("#tools-exercise", RING);
  await page.fill("#deadline", "2099-01-01T00:00");
  await page.click("#set-deadline");
  await eventually(assert.match, async () => await page.textContent("#tools-note"), /Saved: 0 submissions are late/);
  await eventually(assert.match, async () => await page.textContent("#deadline-now"), /2099/);
  await page.screenshot({ path: `${SHOTS}/course-staff-tools-1400.png`, fullPage: true });
  const asStaff = await coursePage(tara, "#/staff");
  await asStaff.waitForSelector("#progress-grid");
  assert.equal(await asStaff.$("#add-staff"), null, "only the admin adds staff");
  assert.deepEqual([...page.errors, ...asStaff.errors], []);
  await page.close();
  await asStaff.close();
});

test("a late submission and a regrade: staff and the learner see the late mark and the history", async () => {
  await call("PUT", `/api/admin/exercises/${RING}/deadline`, admin.token, { due: new Date().toISOString() });
  const late = await judged(ann, exerciseFile(RING, "solution.py"));
  assert.equal(late.late, true);
  const mine = await coursePage(ann, "#/me");
  await mine.waitForSelector(`#my-submissions tr[data-submission="${late.id}"] .tag.late`);
  assert.equal(await mine.$(`#my-submissions tr[data-submission="${ann.first.id}"] .tag.late`), null);
  await mine.close();

  const page = await coursePage(admin, "#/staff");
  await page.selectOption("#tools-exercise", RING);
  await eventually(assert.match, async () => await page.textContent("#deadline-now"), /Deadline: \w+/);
  assert.doesNotMatch(await page.textContent("#deadline-now"), /none/);
  await page.waitForSelector("#regrade-exercise:has-text('Regrade 2 submissions')");
  await page.selectOption("#regrade-verdict", "wrong_answer");
  await page.waitForSelector("#regrade-exercise:has-text('Regrade 0 submissions')");
  assert.ok(await page.isDisabled("#regrade-exercise"));
  await page.selectOption("#regrade-verdict", "accepted");
  await page.waitForSelector("#regrade-exercise:has-text('Regrade 2 submissions')");
  await page.click("#regrade-exercise");
  await eventually(assert.match, async () => await page.textContent("#tools-note"), /2 submissions queued/);
  await page.goto(`${server.url}course.html#/submission/${late.id}`);
  await page.waitForSelector("#late-note");
  await page.waitForSelector("#regrade-history li:has-text('now Accepted')", { timeout: 180_000 }); // judged again
  assert.match(await page.textContent("#regrade-history"), /Regraded on .*: was Accepted \(judge [^)]+\), now Accepted\./);
  await page.click("#regrade-submission"); // once more, this one alone
  await page.waitForFunction(() => document.querySelectorAll("#regrade-history li").length === 2);
  await page.waitForSelector("#regrade-history li:nth-child(2):has-text('now Accepted')", { timeout: 180_000 });

  const learner = await coursePage(ann, `#/submission/${late.id}`);
  await learner.waitForSelector("#late-note, #course-error");
  assert.ok(await learner.$("#late-note"), await learner.textContent("#course"));
  await eventually(assert.equal, async () => await learner.$$eval("#regrade-history li", (items) => items.length), 2);
  assert.match(await learner.textContent("#regrade-history li"), /^Regraded on .*: was Accepted.*, now Accepted\.$/);
  assert.equal(await learner.$("#regrade-submission"), null, "learners do not regrade");
  await learner.screenshot({ path: `${SHOTS}/course-regraded-1400.png`, fullPage: true });
  await learner.click("#course-lang");
  await learner.waitForSelector("#regrade-history li:has-text('重新评测')");
  assert.deepEqual([...page.errors, ...learner.errors], []);
  await page.close();
  await learner.close();
});
