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
  // A static server answers /api/... with its own 404 page or with index.html: no judge there.
  if (!(response.headers.get("content-type") ?? "").includes("json")) throw new Unreachable(path);
  const data = await response.json();
  if (!response.ok) throw new HttpError(response.status, data.detail ?? data);
  return data;
}

export const currentUser = () => load("user");

export async function authenticate(action, username, password) {
  const data = await call("POST", `/api/auth/${action}`, { username, password });
  save("token", data.access_token ?? data.token ?? null);
  save("user", username);
  return username;
}

export function logout() {
  save("token", null);
  save("user", null);
}

export const submit = (exercise, code) => call("POST", "/api/submissions", { exercise, code });
export const submission = (id) => call("GET", `/api/submissions/${id}`);
export const history = (exercise) => call("GET", `/api/submissions?exercise=${encodeURIComponent(exercise)}`);

/** Follow a submission until it is done: server-sent events when they flow, polling otherwise. */
export function follow(id, onUpdate) {
  return new Promise((resolve, reject) => {
    let finished = false;
    const finish = (sub) => {
      if (finished) return;
      finished = true;
      source?.close();
      resolve(sub);
    };
    const poll = async () => {
      while (!finished) {
        const sub = await submission(id);
        onUpdate(sub);
        if (sub.status === "done") return finish(sub);
        await new Promise((r) => setTimeout(r, 400));
      }
    };
    const source = typeof EventSource === "function" ? new EventSource(`/api/submissions/${id}/events`) : null;
    if (!source) return poll().catch(reject);
    source.onmessage = (event) => {
      const sub = JSON.parse(event.data);
      onUpdate(sub);
      if (sub.status === "done") finish(sub);
    };
    source.onerror = () => {
      source.close();
      if (!finished) poll().catch(reject);
    };
  });
}
