// What the browser keeps between visits: code per exercise, progress, language, login token.
const PREFIX = "cjudge:";

export function load(key) {
  const raw = localStorage.getItem(PREFIX + key);
  return raw === null ? null : JSON.parse(raw);
}

export function save(key, value) {
  if (value === null) localStorage.removeItem(PREFIX + key);
  else localStorage.setItem(PREFIX + key, JSON.stringify(value));
}

export const loadCode = (id) => load(`code:${id}`);
export const saveCode = (id, code) => save(`code:${id}`, code);

/** "solved" once any run or submission is accepted; otherwise "tried" after the first run. */
export const progress = (id) => load(`progress:${id}`) ?? "notStarted";

export function recordVerdict(id, verdict) {
  if (progress(id) !== "solved") save(`progress:${id}`, verdict === "accepted" ? "solved" : "tried");
}

/** Submissions sent but not seen finished ([{id, exercise}]): followed again after a reload or an outage. */
export const pendingSubmissions = () => load("pending") ?? [];

export function notePending(id, exercise) {
  save("pending", [...pendingSubmissions().filter((p) => p.id !== id), { id, exercise }]);
}

export function dropPending(id) {
  const left = pendingSubmissions().filter((p) => p.id !== id);
  save("pending", left.length ? left : null);
}
