// The judge server's HTTP API: accounts, submissions, their cases as they are judged. Same origin
// as the app.
import { currentLang, t } from "./i18n.js";
import { load, save } from "./store.js";

export class Unreachable extends Error {}
/**
 * An API error: `code` is the API's stable error code (username_taken, bad_credentials,
 * rate_limited, …), `fields` the fields it finds fault with, `retryAfter` seconds to wait.
 */
export class HttpError extends Error {
  constructor(status, body, retryAfter) {
    const detail = body?.detail ?? body;
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.status = status;
    this.code = body?.code ?? null;
    this.messageZh = body?.message_zh ?? null;
    this.retryAfter = body?.retry_after ?? (Number(retryAfter) || null);
    this.feedback = body?.feedback ?? null; // why a password is too easy to guess (the server's zxcvbn)
    this.fields = {};
    if (status === 422 && Array.isArray(detail)) {
      for (const item of detail) {
        const field = item.loc?.at(-1);
        if (typeof field === "string") this.fields[field] ??= item.type ?? "invalid";
      }
    }
    if (this.code === "weak_password") this.fields.password = "weak";
  }
}

/** What to tell the learner about `error`, in the app's language: never the API's raw English in Chinese. */
export function describe(error) {
  if (error instanceof Unreachable) return t("exercise.serverUnreachable");
  if (!(error instanceof HttpError)) return error.message;
  if (error.code === "rate_limited" || error.code === "busy")
    return t(`exercise.err_${error.code}`, { seconds: error.retryAfter ?? "?" });
  if (error.code && t.has(`exercise.err_${error.code}`)) return t(`exercise.err_${error.code}`);
  if (error.code) return currentLang() === "zh" && error.messageZh ? error.messageZh : error.message;
  if (error.status === 413) return t("exercise.err_too_large");
  if (error.status === 429 || error.status === 503) return t("exercise.err_rate_limited", { seconds: error.retryAfter ?? "?" });
  if (error.status >= 500) return t("exercise.err_server", { status: error.status });
  return t("exercise.err_other", { status: error.status });
}

const token = () => load("token");

/** A 503 `busy` means the server did nothing (every hashing slot or the queue was full): the
 * request is asked again this many times, after its `Retry-After` (at most `BUSY_WAIT_MAX_S`). */
export const BUSY_RETRIES = 3;
const BUSY_WAIT_MAX_S = 5;

/**
 * One request to the API: its JSON answer, an HttpError, or Unreachable. A `busy` answer is
 * asked again up to `retries` times (docs/server.md); pass 0 where a later answer is worthless.
 */
export async function call(method, path, body, { retries = BUSY_RETRIES } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await callOnce(method, path, body);
    } catch (e) {
      if (!(e instanceof HttpError && e.code === "busy") || attempt >= retries) throw e;
      await new Promise((resolve) => setTimeout(resolve, Math.min(e.retryAfter ?? 1, BUSY_WAIT_MAX_S) * 1000));
    }
  }
}

async function callOnce(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token()) headers.Authorization = `Bearer ${token()}`;
  let response;
  try {
    response = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new Unreachable(path);
  }
  if (response.status === 204) return null;
  // A static server answers /api/... with its own 404 page or with index.html: no judge there.
  if (!(response.headers.get("content-type") ?? "").includes("json")) throw new Unreachable(path);
  const data = await response.json();
  if (!response.ok) throw new HttpError(response.status, data, response.headers.get("retry-after"));
  return data;
}

export const currentUser = () => load("user");

export async function authenticate(action, username, password) {
  const data = await call("POST", `/api/auth/${action}`, { username, password });
  save("token", data.token);
  save("user", username);
  return username;
}

/** Forget the login here (a token the server no longer accepts). */
export function forget() {
  save("token", null);
  save("user", null);
}

export async function logout() {
  forget();
  await call("POST", "/api/auth/logout").catch(() => {});
}

export const submit = (exercise, code, filename) => call("POST", "/api/submissions", { exercise, code, filename });
export const submission = (id) => call("GET", `/api/submissions/${id}`);
export const history = (exercise) => call("GET", `/api/submissions?exercise=${encodeURIComponent(exercise)}`);

/** The submissions being followed: id → {listeners, last update, promise of the finished one}. */
const followed = new Map();

/**
 * Follow a submission until it is done: `onUpdate` sees {status, cases so far}; resolves with the
 * finished submission. However many views follow one submission (its pending result, the same
 * submission opened from the history, again and again), they share one stream or poller, and a
 * view that joins late sees at once where it stands.
 */
export function follow(id, onUpdate) {
  let shared = followed.get(id);
  if (!shared) {
    const fresh = { listeners: new Set(), last: null };
    fresh.done = stream(id, (update) => {
      fresh.last = update;
      for (const listener of fresh.listeners) listener(update);
    }).finally(() => followed.delete(id));
    followed.set(id, (shared = fresh));
  }
  shared.listeners.add(onUpdate);
  if (shared.last) onUpdate(shared.last);
  return shared.done.finally(() => shared.listeners.delete(onUpdate));
}

/** One submission's server-sent events (status, case, done) while they flow, polling otherwise. */
function stream(id, onUpdate) {
  return new Promise((resolve, reject) => {
    let finished = false;
    let status = "queued";
    const cases = [];
    const finish = (sub) => {
      finished = true;
      source.close();
      resolve(sub);
    };
    const poll = async () => {
      while (!finished) {
        const sub = await submission(id);
        if (sub.status === "done") return finish(sub);
        onUpdate({ status: sub.status, cases: sub.cases_so_far ?? [] });
        await new Promise((r) => setTimeout(r, 400));
      }
    };
    const source = new EventSource(`/api/submissions/${id}/events`);
    source.addEventListener("status", (event) => {
      status = JSON.parse(event.data).status;
      onUpdate({ status, cases });
    });
    source.addEventListener("case", (event) => {
      cases.push(JSON.parse(event.data));
      onUpdate({ status, cases });
    });
    source.addEventListener("done", (event) => finish(JSON.parse(event.data)));
    source.onerror = () => {
      source.close();
      if (!finished) poll().catch(reject);
    };
  });
}
