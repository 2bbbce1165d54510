// The judge server's HTTP API: accounts, submissions, live progress. Same origin as the app.
import { load, save } from "./store.js";

export class Unreachable extends Error {}
export class HttpError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.status = status;
  }
}

const token = () => load("token");

async function call(method, path, body) {
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
  if (!response.ok) throw new HttpError(response.status, data.detail ?? data);
  return data;
}

export const currentUser = () => load("user");

export async function authenticate(action, username, password) {
  const data = await call("POST", `/api/auth/${action}`, { username, password });
  save("token", data.token);
  save("user", username);
  return username;
}

export async function logout() {
  save("token", null);
  save("user", null);
  await call("POST", "/api/auth/logout").catch(() => {});
}

export const submit = (exercise, code) => call("POST", "/api/submissions", { exercise, code });
export const submission = (id) => call("GET", `/api/submissions/${id}`);
export const history = (exercise) => call("GET", `/api/submissions?exercise=${encodeURIComponent(exercise)}`);

/**
 * Follow a submission until it is done: server-sent events (status, case, done) while they flow,
 * polling otherwise. `onUpdate` sees {status, cases so far}; resolves with the finished submission.
 */
export function follow(id, onUpdate) {
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
        onUpdate({ status: sub.status, cases: sub.progress ?? [] });
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
