// "Open in Perfetto": a graded case's run as Chrome trace-event JSON (made by the kernel's own
// exporter, cjudge.view.perfetto, in the runner worker), handed to ui.perfetto.dev the way its
// documentation describes for a page that opens it (window.open, PING until PONG, then
// postMessage of the trace's bytes), or downloaded as a file when the browser is offline, the
// window could not open, or the page cannot reach it (a page served cross-origin isolated, with
// Cross-Origin-Opener-Policy: same-origin, loses its handle on the tab). The file opens in
// ui.perfetto.dev (drop it there) and chrome://tracing as it is.

export const PERFETTO_ORIGIN = "https://ui.perfetto.dev";
const HANDOFF_MS = 20_000; // no PONG by then: the trace is downloaded instead

/** The file name of a case's trace: `<exercise>-<case>.perfetto.json`. */
export const traceFileName = (exercise, caseName) => `${exercise}-${caseName}`.replace(/[^A-Za-z0-9._-]+/g, "_") + ".perfetto.json";

/** Save `text` as the file `name` (the browser's download). */
export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Open the trace that `trace()` resolves with (JSON text) in ui.perfetto.dev, or download it as
 * `name` when offline. Call it from the click itself: the window must open before any await, or
 * the browser blocks it. Resolves with "perfetto" or "download".
 */
export async function openInPerfetto(trace, name) {
  const win = navigator.onLine ? window.open(PERFETTO_ORIGIN, "_blank") : null;
  let text;
  try {
    text = await trace();
  } catch (error) {
    win?.close();
    throw error;
  }
  if (!win || win.closed) { // blocked, or severed: a cross-origin-isolated page (COOP) cannot reach the tab
    download(name, text);
    return "download";
  }
  const buffer = new TextEncoder().encode(text).buffer;
  const handedOff = await new Promise((resolve) => {
    const ping = setInterval(() => win.postMessage("PING", PERFETTO_ORIGIN), 50);
    const done = (ok) => {
      clearInterval(ping);
      clearTimeout(timer);
      removeEventListener("message", onMessage);
      resolve(ok);
    };
    const onMessage = (event) => {
      if (event.source !== win || event.data !== "PONG") return;
      win.postMessage({ perfetto: { buffer, title: name, fileName: name } }, PERFETTO_ORIGIN);
      done(true);
    };
    const timer = setTimeout(() => done(false), HANDOFF_MS);
    addEventListener("message", onMessage);
  });
  if (handedOff) return "perfetto";
  download(name, text);
  return "download";
}
