// Cold load of the app over a throttled connection (default 8 Mbit/s down, 80 ms latency, as
// Chrome DevTools emulates it), with and without the build's precompressed copies: the time from
// navigation to "Python ready", to the last byte of Python's files, and the bytes on the wire.
// Build web/dist first.
// Usage: node scripts/coldload.mjs [--mbit=8] [--latency=80] [--repeats=1]
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { launch, VIEWPORT } from "./chromium.mjs";
import { serve } from "./serve.mjs";

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const mbit = arg("mbit", 8);
const latency = arg("latency", 80);
const repeats = arg("repeats", 1);
const dist = fileURLToPath(new URL("../dist", import.meta.url));

async function coldLoad(browser, url) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false, latency, downloadThroughput: (mbit * 1e6) / 8, uploadThroughput: (mbit * 1e6) / 8,
  });
  let wire = 0;
  let downloaded = null; // when the app had every byte of Python (the rest is starting it)
  await page.exposeFunction("coldloadStatus", (text) => {
    if (!downloaded && /Loading Python/.test(text) && wire > 1e6) downloaded = Date.now() - t0;
  });
  await page.addInitScript(() => addEventListener("DOMContentLoaded", () => {
    const el = document.getElementById("runner-status");
    new MutationObserver(() => window.coldloadStatus(el.textContent)).observe(el, { childList: true, subtree: true, characterData: true });
  }));
  cdp.on("Network.loadingFinished", (event) => (wire += event.encodedDataLength));
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('#runner-status[data-state="ready"]', { timeout: 600_000 });
  const ms = Date.now() - t0;
  await page.close();
  return { ready_ms: ms, downloaded_ms: downloaded, wire_mb: Number((wire / 1e6).toFixed(2)) };
}

const browser = await launch();
const results = {};
try {
  for (const compression of [false, true]) {
    const server = await serve(dist, 0, true, { compression });
    const url = `http://127.0.0.1:${server.address().port}/#/ring-allreduce`;
    const runs = [];
    for (let i = 0; i < repeats; i++) runs.push(await coldLoad(browser, url));
    results[compression ? "precompressed" : "uncompressed"] = runs;
    server.close();
  }
} finally {
  await browser.close();
}
// on a shared machine, read the times with the load: starting Python is CPU-bound
const load_average = loadavg().map((x) => Number(x.toFixed(1)));
console.log(JSON.stringify({ mbit, latency_ms: latency, load_average, ...results }, null, 2));
