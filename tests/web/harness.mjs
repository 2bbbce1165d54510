// What the browser tests share: the built app served statically, Chromium, and page helpers.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { launch, VIEWPORT } from "../../web/scripts/chromium.mjs";
import { serve } from "../../web/scripts/serve.mjs";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const dist = `${repo}web/dist`;

/**
 * Where tests put their screenshots: a fresh temporary folder, so that running the suite never
 * touches the tracked tree; `make screenshots` points it at docs/screenshots to refresh those.
 */
export const SHOTS = process.env.CJUDGE_SCREENSHOTS || mkdtempSync(`${tmpdir()}/cjudge-shots-`);
mkdirSync(SHOTS, { recursive: true });

/**
 * Assert `assertion(await read(), ...args)` once the page has settled: the page changes after
 * every click and run, so a browser test never reads its state just once. Retries every 100 ms
 * for up to 30 s (generous: CI machines are loaded), then fails with the last value read.
 */
export async function eventually(assertion, read, ...args) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    try {
      assertion(value, ...args);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A file of an exercise folder, e.g. exerciseFile("ring-allreduce", "solution.py"). */
export const exerciseFile = (id, name) => readFileSync(`${repo}exercises/${id}/${name}`, "utf8");

/** Serve web/dist (built by `npm run build`) and start Chromium; `close()` ends both. */
export async function startApp({ isolation = true } = {}) {
  if (!existsSync(`${dist}/index.html`)) throw new Error("web/dist is missing: run `npm run build` in web/ first");
  const server = await serve(dist, 0, isolation);
  const browser = await launch();
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    browser,
    close: async () => {
      await browser.close();
      server.close();
    },
  };
}

/**
 * Open `url` in a page of a fresh context (empty storage) and wait until the runner is ready (or
 * failed). `prepare(page)` runs before the page loads (routes, init scripts).
 */
export async function openPage(browser, url, { viewport = VIEWPORT, prepare } = {}) {
  const page = await browser.newPage({ viewport });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  await prepare?.(page);
  await page.goto(url);
  await page.waitForSelector('#runner-status[data-state="ready"], #runner-status[data-state="failed"]', { timeout: 60_000 });
  return page;
}

/** Replace the editor's text with `code`, as pasting would. */
export async function setCode(page, code) {
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
}

/** The editor's text (every line is rendered: the files here are short); `root` holds the editor. */
// CodeMirror draws only the lines near its viewport (a wrapped, scrolled document shows a part):
// the text is its document's, read through the view that CodeMirror keeps on its content node
export const editorText = (page, root = "#editor") =>
  page.$eval(`${root} .cm-content`, (content) => content.cmTile.root.view.state.doc.toString());

/** Click a run button (or press keys, e.g. "Control+Enter", in the editor) and wait for the verdict; returns {verdict, text}. */
export async function runAndWait(page, button = "#run-sample", timeout = 60_000) {
  if (button.startsWith("#")) await page.click(button);
  else {
    await page.click("#editor .cm-content");
    await page.keyboard.press(button);
  }
  const result = await page.waitForSelector(".result[data-verdict]:not([data-verdict='running'])", { timeout });
  return { verdict: await result.getAttribute("data-verdict"), text: await result.innerText() };
}

export const python = () => process.env.PYTHON ?? (existsSync(`${repo}.venv/bin/python`) ? `${repo}.venv/bin/python` : "python3");

/** A TCP port on loopback that nothing listens on right now (the system's choice). */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve, reject) => probe.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Start the judge server (`python -m server`) on a free port with a fresh data directory and
 * `env` added to its environment; it serves web/dist at `/`. JUDGE_SANDBOX=bwrap keeps the
 * default sandbox, else --no-sandbox. A port taken between choosing it and binding it (by
 * another process's outgoing connection, say) is chosen again, up to five times.
 */
export async function startServer(env = {}) {
  for (let attempt = 1; ; attempt++) {
    const server = await startServerOn(await freePort(), env);
    if (server.url) return server;
    if (!server.log.includes("address already in use") || attempt === 5) {
      throw new Error(`the server exited:\n${server.log}`);
    }
  }
}

/** The server on `port` once it answers, or its log if it exited first (its data removed). */
async function startServerOn(port, env) {
  const data = mkdtempSync(`${tmpdir()}/cjudge-web-test-`);
  const args = ["-m", "server", "--port", String(port), "--data-dir", data, "--workers", "1"];
  if (process.env.JUDGE_SANDBOX !== "bwrap") args.push("--no-sandbox");
  const child = spawn(python(), args, { cwd: repo, env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  let exited = false; // "close": the process has ended and its whole log is read
  child.stderr.on("data", (chunk) => (log += chunk));
  child.on("close", () => (exited = true));
  const url = `http://127.0.0.1:${port}/`;
  const close = () => {
    child.kill();
    rmSync(data, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      close();
      return { log };
    }
    try {
      // a time limit: what holds the port before the server binds it may never answer
      if ((await fetch(`${url}healthz`, { signal: AbortSignal.timeout(2000) })).ok) return { url, close };
    } catch {}
    if (Date.now() > deadline) {
      close();
      throw new Error(`the server did not start in 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A JSON call of the server at `url` (`path` from its root, "/api/…"), as `token`'s user if
 * given; asserts it succeeded and answers its JSON. */
export async function apiCall(url, method, path, token, body) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${url}${path.slice(1)}`, { method, headers, body: body && JSON.stringify(body) });
  assert.ok(r.ok, `${method} ${path}: ${r.status} ${await r.clone().text()}`);
  return r.json();
}

/** axe-core's serious and critical violations on the page now (as "rule: target" lines). */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: `${repo}web/node_modules/axe-core/axe.min.js` });
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations);
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")} (${n.failureSummary?.split("\n")[1]?.trim() ?? ""})`));
}

/** The line number of the editor's cursor (`root`: the editor's container). */
export const cursorLine = (page, root = "#editor") =>
  page.$eval(root, (el) => Number(el.querySelector(".cm-activeLineGutter")?.textContent));
