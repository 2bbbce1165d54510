// What the exercise page shows of the course: the learner's own progress from the server in the
// catalog, and a submission's place in the queue with the submissions left this minute.
import { t } from "./i18n.js";
import { load, recordVerdict } from "./store.js";

let redraw = () => {};
/** Draw the queue note again (in the app's language, after a change). */
export const redrawQueue = () => redraw();

async function get(path) {
  const token = load("token");
  const response = await fetch(path, { credentials: "same-origin",
    headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!response.ok || !(response.headers.get("content-type") ?? "").includes("json")) return null;
  return response.json();
}

/** Merge the server's record of the learner's verdicts into the catalog's progress marks;
 * `redraw` once done (nothing when logged out or without a server). */
export async function syncProgress(redraw) {
  if (!load("user")) return; // logged out: no request (a 401 in the console on every visit)
  const rows = await get("/api/me/progress").catch(() => null);
  if (!Array.isArray(rows)) return;
  for (const row of rows) if (row.best_verdict) recordVerdict(row.exercise, row.best_verdict);
  redraw();
}

/** Show `created` (the answer to a submission of `exercise`: id, queue_position,
 * remaining_this_minute) in `node`, following the submission's place until a worker takes it. */
export async function noteQueue(node, created, exercise) {
  node.dataset.exercise = exercise;
  node.hidden = false;
  const rate = (await get("/api/me/quota").catch(() => null))?.rate_per_minute;
  let place = created.queue_position;
  const draw = () => {
    const parts = [];
    if (place) parts.push(t("queue.place", { n: place }));
    if (created.remaining_this_minute != null && rate) parts.push(t("queue.left", { n: created.remaining_this_minute, rate }));
    node.textContent = parts.join(" ");
    node.dataset.submission = String(created.id);
  };
  redraw = draw;
  draw();
  while (place) {
    await new Promise((r) => setTimeout(r, 1000));
    if (node.dataset.submission !== String(created.id)) return; // a newer submission took over
    const sub = await get(`/api/submissions/${created.id}`).catch(() => null);
    place = sub?.status === "queued" ? sub.queue_position : null;
    draw();
  }
}
