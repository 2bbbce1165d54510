// What the exercise page shows of the course: the learner's own progress from the server in the
// catalog, and a submission's place in the queue with the submissions left this minute.
import { t } from "./i18n.js";
import { state, update } from "./state.js";
import { load, recordVerdict } from "./store.js";

async function get(path) {
  const token = load("token");
  const response = await fetch(path, { credentials: "same-origin",
    headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!response.ok || !(response.headers.get("content-type") ?? "").includes("json")) return null;
  return response.json();
}

/** Merge the server's record of the learner's verdicts into the catalog's progress marks (the
 * state's `recorded` grows once done; nothing when logged out or without a server). */
export async function syncProgress() {
  if (!load("user")) return; // logged out: no request (a 401 in the console on every visit)
  const rows = await get("/api/me/progress").catch(() => null);
  if (!Array.isArray(rows)) return;
  for (const row of rows) if (row.best_verdict) recordVerdict(row.exercise, row.best_verdict);
  update({ recorded: state.recorded + 1 });
}

/** Follow `created` (the answer to a submission of `exercise`: id, queue_position,
 * remaining_this_minute) in the state's `queue` until a worker takes it. */
export async function noteQueue(created, exercise) {
  const rate = (await get("/api/me/quota").catch(() => null))?.rate_per_minute;
  const note = (place) => update({ queue: { id: created.id, exercise, place, left: created.remaining_this_minute, rate } });
  let place = created.queue_position;
  note(place);
  while (place) {
    await new Promise((r) => setTimeout(r, 1000));
    if (state.queue?.id !== created.id) return; // a newer submission took over
    const sub = await get(`/api/submissions/${created.id}`).catch(() => null);
    place = sub?.status === "queued" ? sub.queue_position : null;
    note(place);
  }
}

/** Draw the state's `queue` in `node`: shown while its exercise is open. */
export function drawQueue(node) {
  const queue = state.queue;
  node.hidden = !queue || queue.exercise !== state.current?.id;
  if (!queue) return;
  const parts = [];
  if (queue.place) parts.push(t("queue.place", { n: queue.place }));
  if (queue.left != null && queue.rate) parts.push(t("queue.left", { n: queue.left, rate: queue.rate }));
  node.textContent = parts.join(" ");
}
