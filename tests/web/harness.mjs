// What the browser tests share: the built app served statically, Chromium, and page helpers.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { launch, VIEWPORT } from "../../web/scripts/chromium.mjs";
import { serve } from "../../web/scripts/serve.mjs";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const dist = `${repo}web/dist`;

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

/** Open `url` in a page of a fresh context (empty storage) and wait until the runner is ready (or failed). */
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
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

/** The editor's text (every line is rendered: the files here are short). */
export const editorText = (page) =>
  page.$$eval("#editor .cm-line", (lines) => lines.map((l) => l.textContent).join("\n"));

/** Click a run button and wait for the verdict; returns {verdict, text}. */
export async function runAndWait(page, button = "#run-sample", timeout = 60_000) {
  await page.click(button);
  const result = await page.waitForSelector(".result[data-verdict]:not([data-verdict='running'])", { timeout });
  return { verdict: await result.getAttribute("data-verdict"), text: await result.innerText() };
}

export const python = () => process.env.PYTHON ?? (existsSync(`${repo}.venv/bin/python`) ? `${repo}.venv/bin/python` : "python3");

/**
 * Start the judge server (`python -m server`) on a free port with a fresh data directory; it
 * serves web/dist at `/`. JUDGE_SANDBOX=bwrap keeps the default sandbox, else --no-sandbox.
 */
export async function startServer() {
  const data = mkdtempSync(`${tmpdir()}/cjudge-web-test-`);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = ["-m", "server", "--port", String(port), "--data-dir", data, "--workers", "1"];
  if (process.env.JUDGE_SANDBOX !== "bwrap") args.push("--no-sandbox");
  const child = spawn(python(), args, { cwd: repo, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${log}`);
    try {
      if ((await fetch(`${url}healthz`)).ok) break;
    } catch {}
    if (i > 300) throw new Error(`the server did not start in 60 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    close: () => {
      child.kill();
      rmSync(data, { recursive: true, force: true });
    },
  };
}
