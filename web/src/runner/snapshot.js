// The runner worker's Python, started from a memory snapshot when it can. Starting Pyodide and
// importing the kernel is CPU-bound work that gives the same interpreter on every visit; so the
// first visit snapshots the interpreter's memory once the kernel is imported (Pyodide's
// makeMemorySnapshot) and keeps it in the Cache Storage, and later visits restore it instead.
// The snapshot is keyed by the lock file's hash (which names every wheel's sha256), so a new
// build or a new kernel makes a new one; a snapshot that fails to restore is dropped.
//
// Pyodide refuses a snapshot after `loadPackage` (which records the packages in its JavaScript
// state), so the kernel's wheels are unpacked directly into site-packages: each fetched with its
// sha256 from the lock as the request's integrity, as `loadPackage` would. A restored snapshot
// has the modules in memory but an empty file system: the wheels are unpacked again there, since
// the exercises' statements and graders are files, and some modules are imported later.
import { KERNEL_PACKAGES } from "./boot.js";

const CACHE = "cjudge-python-snapshot";
/** The module the snapshot holds imported: the runner worker's entry to the kernel. */
export const KERNEL_MODULE = "cjudge_web.judge";

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const base64OfHex = (h) => btoa(String.fromCharCode(...h.match(/../g).map((byte) => parseInt(byte, 16))));

/** Fetch the kernel's wheels (checked against the lock's sha256) and unpack them into site-packages. */
async function installWheels(py, pyodideUrl, lock) {
  const fetched = await Promise.allSettled(KERNEL_PACKAGES.map(async (name) => {
    const entry = lock.packages[name];
    if (!entry) throw new Error(`the lock file has no ${name}`);
    const response = await fetch(new URL(entry.file_name, pyodideUrl), { integrity: `sha256-${base64OfHex(entry.sha256)}` });
    if (!response.ok) throw new Error(`${entry.file_name}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }));
  // said as bootPython says it: which packages did not load, and why each
  const failed = KERNEL_PACKAGES.filter((_, i) => fetched[i].status === "rejected");
  if (failed.length) {
    const why = failed.map((name) => `${name}: ${fetched[KERNEL_PACKAGES.indexOf(name)].reason?.message}`);
    throw new Error(`the kernel did not load (${failed.join(", ")}): ${why.join(" ")}`);
  }
  const wheels = fetched.map((f) => f.value);
  const site = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
  for (const wheel of wheels) py.unpackArchive(wheel, "wheel", { extractDir: site });
}

/**
 * Pyodide with the kernel imported: restored from the cached snapshot, or started, imported and
 * snapshotted for the next visit. `mark(stage)` as each stage ends; resolves with
 * `{py, restored}`.
 * @param {string} pyodideUrl  the folder holding pyodide.mjs, pyodide-lock.json and the wheels (ends with "/")
 */
export async function bootKernel(pyodideUrl, mark = () => {}) {
  const [{ loadPyodide }, lockText] = await Promise.all([
    import(`${pyodideUrl}pyodide.mjs`),
    fetch(`${pyodideUrl}pyodide-lock.json`).then((r) => r.text()),
  ]);
  mark("pyodide_js");
  const lock = JSON.parse(lockText);
  const key = `${pyodideUrl}kernel.snapshot?lock=${hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(lockText)))}`;
  // no Cache Storage outside a secure context (plain http on another host) or for an opaque origin
  const cache = globalThis.caches ? await caches.open(CACHE).catch(() => null) : null;
  const cached = await cache?.match(key);
  if (cached) {
    try {
      const py = await loadPyodide({ indexURL: pyodideUrl, _loadSnapshot: cached.arrayBuffer() });
      mark("interpreter");
      await installWheels(py, pyodideUrl, lock);
      mark("wheels");
      if (!py.runPython(`import sys; "${KERNEL_MODULE}" in sys.modules`)) throw new Error("the snapshot has no kernel");
      mark("kernel_import");
      return { py, restored: true };
    } catch (error) {
      console.warn("the Python snapshot did not restore; starting afresh:", error);
      await cache.delete(key);
    }
  }
  const py = await loadPyodide({ indexURL: pyodideUrl, packages: [], fullStdLib: false, _makeSnapshot: true });
  mark("interpreter");
  await installWheels(py, pyodideUrl, lock);
  mark("wheels");
  py.pyimport(KERNEL_MODULE);
  mark("kernel_import");
  if (cache) {
    const snapshot = py.makeMemorySnapshot(); // a copy: Python may run on while it is stored
    (async () => {
      for (const request of await cache.keys()) await cache.delete(request); // an older build's
      await cache.put(key, new Response(snapshot));
    })().catch((error) => console.warn("the Python snapshot was not stored:", error));
  }
  return { py, restored: false };
}
