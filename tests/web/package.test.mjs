// The kernel reaches the page as Pyodide packages: two wheels listed with their sha256 in the
// app's pyodide-lock.json (npm run build). The page loads them through loadPackage, says which
// kernel it runs, refuses a wheel whose bytes differ from the lock's hash, and notices a judge
// server whose kernel is newer.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch } from "../../web/scripts/chromium.mjs";
import { serve } from "../../web/scripts/serve.mjs";
import { dist, openPage, python, repo } from "./harness.mjs";

const version = execFileSync(python(), ["-c", "import cjudge; print(cjudge.__version__)"], {
  env: { ...process.env, PYTHONPATH: `${repo}practice` },
  encoding: "utf8",
}).trim();
const lock = JSON.parse(readFileSync(`${dist}/pyodide/pyodide-lock.json`, "utf8"));

let browser, tampered, servers;
before(async () => {
  // a copy of the build whose kernel wheel has one byte changed
  tampered = mkdtempSync(join(tmpdir(), "cjudge-tampered-"));
  cpSync(dist, tampered, { recursive: true });
  const wheel = join(tampered, "pyodide", lock.packages["cjudge-browser"].file_name);
  const bytes = readFileSync(wheel);
  bytes[bytes.length >> 1] ^= 0x01;
  writeFileSync(wheel, bytes);
  servers = [await serve(dist, 0, false), await serve(tampered, 0, false)];
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const server of servers ?? []) server.close();
  if (tampered) rmSync(tampered, { recursive: true, force: true });
});
const url = (server) => `http://127.0.0.1:${server.address().port}/#/ring-allreduce`;

test("the build's lock file lists the kernel's wheels, beside them, with the kernel's version", () => {
  const kernel = lock.packages["cjudge-browser"];
  assert.equal(kernel.version, version);
  assert.deepEqual(kernel.imports, ["cjudge", "cjudge_web"]);
  assert.match(kernel.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(lock.packages["cjudge-exercises"].imports, ["cjudge_exercises"]);
  const files = readdirSync(`${dist}/pyodide`);
  for (const name of ["cjudge-browser", "cjudge-exercises"]) assert.ok(files.includes(lock.packages[name].file_name), name);
  assert.ok(!files.includes("kernel.zip") && !readdirSync(dist).includes("kernel.zip"));
});

test("the page loads the kernel's package and says which kernel it runs", async () => {
  const page = await openPage(browser, url(servers[0]));
  assert.equal(await page.getAttribute("#runner-status", "data-state"), "ready", await page.getAttribute("#runner-status", "title"));
  assert.equal(await page.getAttribute("#runner-status", "data-kernel"), version);
  assert.match(await page.getAttribute("#runner-status", "title"), new RegExp(`kernel ${version.replaceAll(".", "\\.")}`));
  assert.equal(await page.locator("#kernel-newer").count(), 0, "a static copy has no server to compare with");
  await page.close();
});

test("a wheel with one byte changed is refused: the page fails to start Python and says so", async () => {
  const page = await openPage(browser, url(servers[1]));
  assert.equal(await page.getAttribute("#runner-status", "data-state"), "failed");
  // Chromium refuses the response itself (its integrity is the lock's sha256): the fetch fails,
  // before any byte reaches Pyodide's unpacking
  assert.match(await page.getAttribute("#runner-status", "title"), /kernel did not load \(cjudge-browser\).*cjudge-browser: Failed to fetch/);
  assert.ok(await page.isDisabled("#run-sample"));
  await page.close();
});

test("a snapshot with one byte changed is refused: the page fails to start Python and names it", async () => {
  const page = await openPage(browser, url(servers[0]), {
    prepare: (p) => p.context().route("**/pyodide/kernel.snapshot", async (route) => {
      const response = await route.fetch();
      const bytes = await response.body();
      bytes[bytes.length >> 1] ^= 0x01;
      await route.fulfill({ response, body: bytes });
    }),
  });
  assert.equal(await page.getAttribute("#runner-status", "data-state"), "failed");
  assert.match(await page.getAttribute("#runner-status", "title"), /Python snapshot did not load \(kernel\.snapshot\): Failed to fetch/);
  await page.close();
});

test("a snapshot changed in the service worker's cache is refused: the page names it", async () => {
  const page = await openPage(browser, url(servers[0]));
  await page.evaluate(() => navigator.serviceWorker.ready); // installed: every file cached
  await page.evaluate(async () => {
    const cache = await caches.open("cjudge-files");
    const key = (await cache.keys()).find((request) => new URL(request.url).pathname.endsWith("/pyodide/kernel.snapshot"));
    const bytes = new Uint8Array(await (await cache.match(key)).arrayBuffer());
    bytes[bytes.length >> 1] ^= 0x01;
    await cache.put(key, new Response(bytes));
  });
  await page.reload();
  await page.waitForSelector('#runner-status[data-state="ready"], #runner-status[data-state="failed"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute("#runner-status", "data-state"), "failed");
  assert.match(await page.getAttribute("#runner-status", "title"), /Python snapshot did not load \(kernel\.snapshot\): the cached copy is not the build's/);
  await page.close();
});

test("a judge server whose kernel is newer than the page's is noticed, in English and Chinese", async () => {
  const newer = version.replace(/^(\d+)/, (major) => String(Number(major) + 1));
  const page = await openPage(browser, url(servers[0]), {
    prepare: (p) => p.route("**/api/exercises", (route) => route.fulfill({
      contentType: "application/json",
      body: JSON.stringify([{ id: "ring-allreduce", title: { en: "", zh: "" }, content_hash: "", judge_version: newer }]),
    })),
  });
  const notice = page.locator("#kernel-newer");
  await notice.waitFor();
  assert.match(await notice.textContent(), new RegExp(`newer kernel \\(${newer.replaceAll(".", "\\.")}\\).*reload`));
  await page.click("#lang-toggle");
  assert.match(await page.locator("#kernel-newer").textContent(), /刷新/);
  await page.close();
});
