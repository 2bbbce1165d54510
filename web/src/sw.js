// The app's service worker: the app and Pyodide's files cached by content hash, so that a reload
// works offline and Stop (which starts a fresh runner worker, loading Python again) works offline.
//
// The build (web/scripts/build.mjs) writes dist/sw.js as `self.OFFLINE = {version, files}` (the
// files, relative to this script, with their sha256 and size: dist/offline.json) followed by this
// file, so every build with a changed file is a new service worker. A file is cached under its
// hash: a new version downloads only the files whose hash changed, checks each against its hash,
// and drops the old ones once it is active. The judge's API (/api/...) is never cached.
/* global OFFLINE */
const CACHE = "cjudge-files"; // the runner worker reads its Python files here too (runner/snapshot.js)
const base = new URL("./", self.location.href);
const files = OFFLINE.files;

/** The cache key of one file's content: its URL with its hash. */
const keyOf = (path) => new URL(`${path}?sha256=${files[path].sha256}`, base).href;

/** The manifest's path of a request's URL, if the app caches it ("" and "/" are index.html). */
function pathOf(url) {
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  let path = decodeURIComponent(url.pathname.slice(base.pathname.length));
  if (path === "") path = "index.html";
  return path in files ? path : null;
}

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Fetch one file, check its content against the manifest's hash, keep a plain copy of it. */
async function fetchChecked(path) {
  const response = await fetch(new URL(path, base), { cache: "no-cache" });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const body = await response.arrayBuffer();
  const sha256 = hex(await crypto.subtle.digest("SHA-256", body));
  if (sha256 !== files[path].sha256) throw new Error(`${path}: content is not the build's (a newer build is deployed)`);
  // the body is stored decoded: drop the transfer's encoding and length
  const headers = new Headers(response.headers);
  for (const name of ["content-encoding", "content-length", "etag", "last-modified"]) headers.delete(name);
  return new Response(body, { status: 200, statusText: "OK", headers });
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(Object.keys(files).map(async (path) => {
      if (await cache.match(keyOf(path))) return; // the same content, cached by an earlier version
      await cache.put(keyOf(path), await fetchChecked(path));
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const keep = new Set(Object.keys(files).map(keyOf));
    for (const request of await cache.keys()) if (!keep.has(request.url)) await cache.delete(request);
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const path = pathOf(url);
  if (!path) return; // the API, source maps, anything else: the network as usual
  event.respondWith((async () => {
    const cached = await caches.match(keyOf(path), { cacheName: CACHE });
    return cached ?? fetch(request);
  })());
});

self.addEventListener("message", (event) => {
  if (event.data === "version") event.source?.postMessage({ version: OFFLINE.version });
});
