// The course page against a real judge server: a learner's leaderboard and display name, their
// progress and quota, and the staff's progress table with its CSV download.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { launch } from "../../web/scripts/chromium.mjs";
import { apiCall, axeViolations, eventually, exerciseFile, setCode, SHOTS, startServer } from "./harness.mjs";

const STAFF = { username: "course_staff", password: "a-long-staff-password-9" };
const PASSWORD = "correct horse battery staple";
let server, browser;
const tokens = new Map(); // token -> username (the main app keeps both)

const call = (method, path, token, body) => apiCall(server.url, method, path, token, body);

async function learner(username, code) {
  const { token } = await call("POST", "/api/auth/register", null, { username, password: PASSWORD });
  tokens.set(token, username);
  const { id } = await call("POST", "/api/submissions", token, { exercise: "ring-allreduce", code });
  for (let i = 0; i < 600; i++) {
    const s = await call("GET", `/api/submissions/${id}`, token);
    if (s.status === "done") return { token, verdict: s.verdict };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`submission ${id} was not judged`);
}

/** The course page at `hash`, logged in with `token` (as the main app keeps it; none: logged out). */
async function coursePage(token, hash, viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage({ acceptDownloads: true, viewport, bypassCSP: true }); // axe-core is injected
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  if (token) await page.addInitScript(([t, user]) => {
    localStorage.setItem("cjudge:token", JSON.stringify(t));
    localStorage.setItem("cjudge:user", JSON.stringify(user));
  }, [token, tokens.get(token) ?? STAFF.username]);
  await page.goto(`${server.url}course.html${hash}`);
  return page;
}

let ann, bob;
before(async () => {
  server = await startServer({ CJUDGE_ADMIN_USERNAME: STAFF.username,
    CJUDGE_ADMIN_PASSWORD: STAFF.password, CJUDGE_RATE_PER_MINUTE: "100" });
  browser = await launch();
  ann = await learner(`ann${Date.now() % 100000}`, exerciseFile("ring-allreduce", "solution.py"));
  bob = await learner(`bob${Date.now() % 100000}`, exerciseFile("ring-allreduce", "wrong/allgather_adds_instead_of_copy.py"));
});
after(async () => {
  await browser?.close();
  server?.close();
});

test("a learner sees the leaderboard, chooses a display name and sees their progress", async () => {
  assert.equal(ann.verdict, "accepted");
  const page = await coursePage(ann.token, "#/leaderboard/ring-allreduce");
  const first = await page.waitForSelector('#leaderboard tr[data-rank="1"]');
  await eventually(assert.match, async () => await first.innerText(), /anonymous \(you\)/);
  await eventually(assert.match, async () => await first.innerText(), /7,000|7000/); // bytes of the busiest rank of the 8-rank case
  await eventually(assert.equal, async () => await page.$$eval("#leaderboard tbody tr", (rows) => rows.length), 1); // bob's is wrong
  await page.click('#course-nav a[href="#/me"]');
  await page.waitForSelector("#profile-form");
  await eventually(assert.match, async () => await page.textContent("#quota"), /Submissions left this minute: 99 of 100/);
  await eventually(assert.match, async () => await page.textContent('#my-progress td[data-verdict="accepted"]'), /^Accepted$/);
  await page.fill("#display-name", "Ann the Ringer");
  await page.click('#profile-form button[type="submit"]');
  await page.waitForSelector("#profile-note:has-text('Saved.')");
  await page.click('#course-nav a[href="#/leaderboard"]');
  await page.selectOption("#exercise-picker", "ring-allreduce");
  await page.waitForSelector('#leaderboard tr[data-rank="1"]:has-text("Ann the Ringer (you)")');
  await page.click("#course-lang");
  await page.waitForSelector('#leaderboard th:has-text("名次")');
  await page.click('#course-nav a[href="#/me"]');
  await eventually(assert.match, async () => await page.textContent('#my-progress td[data-verdict="accepted"]'), /^通过$/);
  await page.click("#course-lang");
  const staffOnly = await coursePage(ann.token, "#/staff");
  await eventually(assert.match, async () => await (await staffOnly.waitForSelector("#course-error")).innerText(), /for staff/);
  assert.deepEqual([...page.errors, ...staffOnly.errors], []);
  await page.close();
  await staffOnly.close();
});

test("staff see learners × exercises, solve rates, and download the CSV", async () => {
  const { token } = await call("POST", "/api/auth/login", null, STAFF);
  const page = await coursePage(token, "#/staff");
  const rates = await page.waitForSelector('#solve-rates tr[data-exercise="ring-allreduce"]');
  await eventually(assert.match, async () => await rates.innerText(), /1 \/ 2/);
  await eventually(assert.match, async () => await rates.innerText(), /50 %/);
  await eventually(assert.match, async () => await rates.innerText(), /Wrong answer × 1/);
  const grid = await page.textContent("#progress-grid");
  assert.match(grid, /Accepted · 1/);
  assert.match(grid, /Wrong answer · 1/);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-csv")]);
  assert.equal(download.suggestedFilename(), "progress.csv");
  const lines = readFileSync(await download.path(), "utf8").trim().split("\n");
  assert.equal(lines[0], "user_id,username,display_name,exercise,best_verdict,attempts,solved,first_accepted_at");
  const ring = lines.filter((l) => l.includes(",ring-allreduce,"));
  assert.equal(ring.length, 2);
  assert.match(ring.find((l) => l.includes(",accepted,")), /^\d+,ann\d+,Ann the Ringer,ring-allreduce,accepted,1,1,\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  assert.match(ring.find((l) => l.includes(",wrong_answer,")), /^\d+,bob\d+,,ring-allreduce,wrong_answer,1,0,$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the exercise page shows the learner's server progress and a submission's quota", async () => {
  const page = await coursePage(ann.token, "");
  await page.goto(`${server.url}#/ring-allreduce`);
  await page.waitForSelector('#exercise-list li[data-exercise="ring-allreduce"][data-progress="solved"]');
  await page.waitForSelector("#editor .cm-content");
  await setCode(page, exerciseFile("ring-allreduce", "solution.py"));
  await page.click("#submit");
  await page.waitForFunction(() => document.getElementById("queue-note")?.textContent.includes("98 of 100 submissions left this minute"), null, { timeout: 10_000 })
    .catch(async (e) => assert.fail(`${e.message}: ${await page.evaluate(() => document.getElementById("queue-note")?.outerHTML)}`));
  await page.waitForSelector(".result[data-verdict='accepted']", { timeout: 120_000 });
  // "See the leaderboard" and the course link open this exercise's board, where the accept is
  const board = "course.html#/leaderboard/ring-allreduce";
  await eventually(assert.equal, async () => await page.getAttribute("#next-exercise ~ #see-leaderboard", "href"), board);
  await eventually(assert.equal, async () => await page.getAttribute("#course-link", "href"), board);
  // the queue note follows the app's language, and stays with its own exercise
  await page.click("#lang-toggle");
  await eventually(assert.match, async () => await page.textContent("#queue-note"), /本分钟还可提交 98 次/);
  await page.click("#lang-toggle");
  await page.click('#exercise-list a[href="#/alltoall-transpose"]');
  await eventually(assert.equal, async () => await page.isVisible("#queue-note"), false);
  await eventually(assert.equal, async () => await page.getAttribute("#course-link", "href"), "course.html#/leaderboard/alltoall-transpose");
  await page.click('#exercise-list a[href="#/ring-allreduce"]');
  await eventually(assert.equal, async () => await page.isVisible("#queue-note"), true);
  // the past submission, read-only with its verdict: axe finds nothing serious there either
  await page.click("#history li[data-submission] button.link");
  await page.waitForSelector("#past .past-result .result[data-verdict='accepted']");
  assert.deepEqual(await axeViolations(page), [], "the past-submission view");
  await page.click("#past-close");
  await page.click("#course-link");
  await page.waitForSelector('#leaderboard tr.you:has-text("(you)")');
  await eventually(assert.match, async () => await page.textContent("h1"), /Ring all-reduce/i);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/**
 * Where the course page's blocks lie: main's children (their boxes), the viewport's width, the
 * page's scroll width, and every table's box and its scrolling box's.
 */
const layout = (page) => page.evaluate(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width }; };
  const main = document.getElementById("course");
  return {
    main: box(main), blocks: [...main.children].filter((el) => el.getClientRects().length).map((el) => ({ tag: el.tagName, ...box(el) })),
    width: innerWidth, scrollWidth: document.documentElement.scrollWidth,
    tables: [...main.querySelectorAll("table")].map((t) => ({ id: t.id, table: box(t), frame: box(t.closest(".table-scroll")) })),
  };
});

test("every course view is a page of blocks, one under another, that fits the screen (1400 px and a phone)", async () => {
  const { token: staff } = await call("POST", "/api/auth/login", null, STAFF);
  const views = [["leaderboard", ann.token, "#/leaderboard/ring-allreduce", "#leaderboard"], ["me", ann.token, "#/me", "#my-progress"],
    ["staff", staff, "#/staff", "#progress-grid"]];
  for (const [name, token, hash, ready] of views) {
    for (const viewport of [{ width: 1400, height: 900 }, { width: 390, height: 844 }]) {
      const page = await coursePage(token, hash, viewport);
      await page.waitForSelector(`${ready} tbody tr, #course-error, #leaderboard-empty`);
      assert.ok(await page.isVisible(`${ready} tbody tr`), `${name}: ${await page.textContent("#course")}`);
      const where = `${name} at ${viewport.width} px`;
      const { main, blocks, width, scrollWidth, tables } = await layout(page);
      assert.ok(blocks.length >= 3, `${where}: heading, rule and table`);
      blocks.slice(1).forEach((b, i) => assert.ok(b.top >= blocks[i].bottom - 1, `${where}: ${b.tag} is below ${blocks[i].tag}, not beside it`));
      for (const b of blocks) assert.ok(b.right <= main.right + 1 && b.left >= main.left - 1, `${where}: ${b.tag} inside the page`);
      assert.ok(blocks[0].tag === "H1" && blocks[0].width > 0.8 * (main.width - 64), `${where}: the heading spans the page`);
      assert.ok(scrollWidth <= width + 1, `${where}: the page is no wider than the screen (${scrollWidth} > ${width})`);
      for (const t of tables) {
        assert.ok(t.frame.right <= width + 1, `${where}: #${t.id}'s box fits the screen`);
        // the staff's grid (a column per exercise) scrolls in its box; the others fit whole
        if (t.id !== "progress-grid") assert.ok(t.table.right <= width + 1, `${where}: #${t.id} fits the screen (${t.table.right} > ${width})`);
      }
      if (name === "leaderboard") assert.ok(await page.isVisible("#exercise-picker"));
      assert.deepEqual(await axeViolations(page), [], `axe: ${where}`);
      await page.screenshot({ path: `${SHOTS}/course-${name}-${viewport.width}.png`, fullPage: true });
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  }
});

test("the password rule shown is the one enforced: a guessable password gets the strength check's feedback", async () => {
  const weak = { username: `cat${Date.now() % 100000}`, password: "password123" }; // 11 characters, and refused
  const refused = await fetch(`${server.url}api/auth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(weak) });
  assert.equal(refused.status, 422);
  const { feedback } = await refused.json();
  assert.ok(feedback, "the server says why");
  const page = await coursePage(null, "");
  await page.goto(`${server.url}#/ring-allreduce`);
  await page.click("#login");
  await page.click("#auth-mode-register");
  await eventually(assert.match, async () => await page.textContent("#password-rule"), /At least 8 characters, and hard to guess.*password123/);
  await page.fill("#auth-username", weak.username);
  await page.fill("#auth-password", weak.password);
  await page.press("#auth-password", "Enter");
  await page.waitForSelector("#password-error:not(:empty)");
  await eventually(assert.equal, async () => await page.textContent("#password-error"),
    `This password is too easy to guess: use a longer, less common one. The strength check says: ${feedback}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
