// The web app's state: one object, read by anyone through `state`, changed only through
// `update`, which then calls the drawers of the keys that changed (each drawer once, in the
// order they subscribed). No framework: a drawer is a function that redraws its part of the page
// from `state`.
import { load } from "./store.js";

const data = {
  /** The interface language, "en" or "zh" (kept between visits by i18n.setLang). */
  lang: load("lang") ?? (navigator.language?.startsWith("zh") ? "zh" : "en"),
  /** The browser runner's state as it reports it: [state, detail] ("loading", "ready", "busy", "failed"). */
  runner: ["loading"],
  /** Whether a judge server answers here: null until asked, false on a static host or while unreachable. */
  serverUp: null,
  /** The judge server's kernel version (from GET /api/exercises); null without a server. */
  serverKernel: null,
  /** The logged-in user's name, or null. */
  user: load("user"),
  /** The open exercise (a catalog entry), or null; `missing` is the id the address named when no exercise has it. */
  current: null,
  missing: null,
  /** What the results area shows: {result, heading(), sampleOnly, …} or {status(), kind}; null for nothing. */
  shown: null,
  /** The past submission shown read-only instead of the editor, or null. */
  past: null,
  /** Work under way per exercise id (a count), and views that finished while another exercise was open. */
  running: new Map(),
  waiting: new Map(),
  /** Submissions sent but not seen finished ([{id, exercise}], as store.js keeps them). */
  pending: load("pending") ?? [],
  /** Counters that grow when data kept elsewhere changed: verdicts recorded in the store's
   * progress marks, and the learner's submissions on the server. */
  recorded: 0,
  submitted: 0,
  /** The place of the latest submission in the judge's queue: {id, exercise, place, left, rate}, or null. */
  queue: null,
};

/** The state, read-only: assigning to it throws (change it with `update`). */
export const state = new Proxy(data, {
  set: () => {
    throw new TypeError("the app's state changes through update()");
  },
});

/** Drawers per key, and all of them in the order they subscribed. */
const drawers = new Map(Object.keys(data).map((key) => [key, []]));
const order = [];

/** Call `draw` whenever one of `keys` changes. */
export function on(keys, draw) {
  for (const key of keys) {
    if (!drawers.has(key)) throw new Error(`unknown state key ${key}`);
    drawers.get(key).push(draw);
  }
  if (!order.includes(draw)) order.push(draw);
}

/** Set the keys of `patch`; redraw what depends on those whose value changed (by Object.is). */
export function update(patch) {
  const due = new Set();
  for (const [key, value] of Object.entries(patch)) {
    if (!drawers.has(key)) throw new Error(`unknown state key ${key}`);
    if (Object.is(data[key], value)) continue;
    data[key] = value;
    for (const draw of drawers.get(key)) due.add(draw);
  }
  for (const draw of order) if (due.has(draw)) draw();
}

/** Every drawer once (the first drawing of the page), in subscription order. */
export function drawAll() {
  for (const draw of order) draw();
}
