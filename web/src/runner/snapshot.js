// The runner worker's Python, started from the build's memory snapshot. Starting Pyodide and
// importing the kernel is CPU-bound work that ends in the same interpreter on every visit, so the
// build does it once (web/scripts/build.mjs, in Node) and saves the interpreter's memory
// (Pyodide's makeMemorySnapshot) as pyodide/kernel.snapshot; the page restores that instead.
// kernel.snapshot.json beside it names the snapshot's sha256, the fetch's integrity (a tampered
// snapshot is refused, and named), the lock file's it was made with, and whether JSPI was there:
// a snapshot of other wheels, or of the other JSPI state, is not restored, and Python starts
// afresh as the build did, as it does when a restore fails.
//
// Pyodide refuses a snapshot after `loadPackage` (which records the packages in its JavaScript
// state), so the kernel's wheels are unpacked directly into site-packages: each fetched with its
// sha256 from the lock as the request's integrity, as `loadPackage` would. A restored snapshot
// has the modules in memory but an empty file system: the wheels are unpacked again there, since
// the exercises' statements and graders are files, and some modules are imported later.
import { KERNEL_PACKAGES, hasJspi } from "./boot.js";

/** The module the snapshot holds imported: the runner worker's entry to the kernel. */
export const KERNEL_MODULE = "cjudge_web.judge";
/** The snapshot's file beside pyodide.mjs; `${SNAPSHOT}.json` names its hash and its lock's. */
export const SNAPSHOT = "kernel.snapshot";
/** The service worker's cache, where each file's key is its URL with `?sha256=` its hash (sw.js). */
const SW_CACHE = "cjudge-files";

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const base64OfHex = (h) => btoa(String.fromCharCode(...h.match(/../g).map((byte) => parseInt(byte, 16))));

/** The SHA-256 of `text`'s UTF-8 bytes, in hex. */
const sha256Hex = async (text) => hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));

/**
 * Fetch `url` whose content must have the sha256 `sha256` (hex): its bytes. When the service
 * worker (sw.js) holds them, they are read from its cache here and checked the same way, rather
 * than passed (31 MB of snapshot) through the service worker's thread.
 */
async function fetchChecked(url, sha256) {
  const cached = await globalThis.caches?.match(`${url}?sha256=${sha256}`, { cacheName: SW_CACHE }).catch(() => null);
  if (cached) {
    const bytes = await cached.arrayBuffer();
    if (hex(await crypto.subtle.digest("SHA-256", bytes)) !== sha256) throw new Error("the cached copy is not the build's");
    return new Uint8Array(bytes);
  }
  const response = await fetch(url, { integrity: `sha256-${base64OfHex(sha256)}` });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The kernel's wheels, each checked against the lock's sha256; a failure names the packages. */
async function fetchWheels(pyodideUrl, lock) {
  const fetched = await Promise.allSettled(KERNEL_PACKAGES.map((name) => {
    const entry = lock.packages[name];
    if (!entry) return Promise.reject(new Error(`the lock file has no ${name}`));
    return fetchChecked(new URL(entry.file_name, pyodideUrl), entry.sha256);
  }));
  // said as bootPython says it: which packages did not load, and why each
  const failed = KERNEL_PACKAGES.filter((_, i) => fetched[i].status === "rejected");
  if (failed.length) {
    const why = failed.map((name) => `${name}: ${fetched[KERNEL_PACKAGES.indexOf(name)].reason?.message}`);
    throw new Error(`the kernel did not load (${failed.join(", ")}): ${why.join(" ")}`);
  }
  return fetched.map((f) => f.value);
}

/**
 * The sha256 of the build's snapshot made with this lock file where JSPI is as here, or null (none,
 * another lock's, or made with JSPI where there is none or the other way: a Python made without
 * stack switching never returns from a JSPI run).
 */
async function snapshotHash(pyodideUrl, lockText) {
  const about = await fetch(new URL(`${SNAPSHOT}.json`, pyodideUrl));
  if (!about.ok) return null;
  const { sha256, lock_sha256: lockSha256, jspi } = await about.json();
  if (jspi !== hasJspi()) {
    console.warn(`the Python snapshot was made ${jspi ? "with" : "without"} JSPI; starting afresh`);
    return null;
  }
  if (lockSha256 === await sha256Hex(lockText)) return sha256;
  console.warn("the Python snapshot was made with other wheels; starting afresh");
  return null;
}

/** The snapshot's bytes, checked against `sha256`; a failure names it. */
const fetchSnapshot = (pyodideUrl, sha256) => fetchChecked(new URL(SNAPSHOT, pyodideUrl), sha256).catch((error) => {
  throw new Error(`the Python snapshot did not load (${SNAPSHOT}): ${error.message}`);
});

/** Unpack the kernel's wheels (bytes, in KERNEL_PACKAGES' order) into site-packages. */
export function unpackWheels(py, wheels) {
  const site = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
  for (const wheel of wheels) py.unpackArchive(wheel, "wheel", { extractDir: site });
}

/**
 * Pyodide restored from `snapshot` (bytes, or a promise of them: Pyodide fetches its own files
 * meanwhile), or null if it does not restore; a snapshot that did not load throws.
 */
async function restore(loadPyodide, pyodideUrl, snapshot) {
  try {
    return await loadPyodide({ indexURL: pyodideUrl, _loadSnapshot: snapshot });
  } catch (error) {
    await snapshot;
    console.warn("the Python snapshot did not restore; starting afresh:", error);
    return null;
  }
}

/**
 * Pyodide with the kernel imported: restored from the build's snapshot, or started afresh.
 * Everything is fetched at once. `mark(stage)` as each stage ends; resolves with
 * `{py, restored, snapshot}`: `snapshot` the bytes it started from or made, when `keep` asks for
 * them (the workers path starts its rank workers from them).
 * @param {string} pyodideUrl  the folder holding pyodide.mjs, pyodide-lock.json and the wheels (ends with "/")
 */
export async function bootKernel(pyodideUrl, mark = () => {}, { keep = false } = {}) {
  const lockText = fetch(new URL("pyodide-lock.json", pyodideUrl)).then((r) => r.text());
  const wheels = lockText.then((text) => fetchWheels(pyodideUrl, JSON.parse(text)));
  const hash = lockText.then((text) => snapshotHash(pyodideUrl, text));
  for (const promise of [wheels, hash]) promise.catch(() => {}); // awaited below
  const { loadPyodide } = await import(`${pyodideUrl}pyodide.mjs`);
  mark("pyodide_js");
  const sha256 = await hash;
  const bytes = sha256 ? fetchSnapshot(pyodideUrl, sha256) : null;
  bytes?.catch(() => {}); // awaited by the restore
  let py = bytes && (await restore(loadPyodide, pyodideUrl, bytes));
  const restored = Boolean(py);
  py ||= await loadPyodide({ indexURL: pyodideUrl, packages: [], fullStdLib: false, _makeSnapshot: keep });
  mark("interpreter");
  unpackWheels(py, await wheels);
  mark("wheels");
  py.pyimport(KERNEL_MODULE); // in memory already when restored
  mark("kernel_import");
  const kept = keep ? (restored ? await bytes : py.makeMemorySnapshot()) : null;
  return { py, restored, snapshot: kept };
}

/**
 * A rank worker's Pyodide, from the bytes of the judge's worker's snapshot (the same interpreter,
 * kernel imported): `{py, restored: true}`, or `{py: null}` if it does not restore.
 */
export async function bootFromSnapshot(pyodideUrl, snapshot) {
  const lock = fetch(new URL("pyodide-lock.json", pyodideUrl)).then((r) => r.json());
  const wheels = lock.then((l) => fetchWheels(pyodideUrl, l));
  wheels.catch(() => {}); // awaited below
  const { loadPyodide } = await import(`${pyodideUrl}pyodide.mjs`);
  const py = await restore(loadPyodide, pyodideUrl, snapshot);
  if (!py) return { py: null, restored: false };
  unpackWheels(py, await wheels);
  return { py, restored: true };
}
