// Builds web/dist: the bundled app and runner, Pyodide's own files, the kernel as Pyodide packages
// (two wheels and the app's pyodide-lock.json, written by pyodide-build), the catalog.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { KERNEL_PACKAGES } from "../src/runner/boot.js";
import { KERNEL_MODULE, SNAPSHOT, unpackWheels } from "../src/runner/snapshot.js";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(web, "..");
const dist = join(web, "dist");

// pyodide-build's CLI, in the build-time environment (Python >= 3.12) that scripts/setup.sh makes
const PYODIDE_CLI = process.env.PYODIDE_CLI ?? join(repo, ".tools", "pyodide-build", "bin", "pyodide");
// precompressed copies: of these files, when they are at most 90% of the original
const COMPRESSIBLE = /\.(js|mjs|css|json|wasm|html|svg|zip|ttf|snapshot)$/;
const MIN_GAIN = 0.9; // keep a copy only if it is at most 90% of the original
// Brotli's best quality takes minutes for the kernel's snapshot (31 MB, new with every kernel):
// files this large get a quality that takes seconds, for a copy about a fifth larger
const BIG = 16e6;
const BIG_QUALITY = 5;
const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"];

function filesUnder(root) {
  return readdirSync(root, { recursive: true })
    .map((name) => name.split(sep).join("/"))
    .filter((name) => statSync(join(root, name)).isFile() && !name.includes("__pycache__"));
}

/**
 * The kernel's browser part and the exercises' published files as wheels in dist/pyodide
 * (web/scripts/wheels.py chooses their files by package layout), then `pyodide lockfile
 * add-wheels` adds them, with their sha256, to Pyodide's own lock file: the app's
 * pyodide-lock.json, from which `loadPackage` fetches and checks them. Returns the wheels' names.
 */
function kernelPackages(out) {
  if (!existsSync(PYODIDE_CLI)) {
    throw new Error(`${PYODIDE_CLI} is missing: run scripts/setup.sh (it makes the pyodide-build environment)`);
  }
  const wheels = execFileSync(python(), [join(web, "scripts", "wheels.py"), out], { encoding: "utf8" }).trim().split("\n");
  execFileSync(PYODIDE_CLI, [
    "lockfile", "add-wheels",
    "--input", join(web, "node_modules", "pyodide", "pyodide-lock.json"),
    "--output", join(out, "pyodide-lock.json"),
    "--base-path", out,
    ...wheels,
  ], { stdio: ["ignore", "ignore", "inherit"] });
  return wheels.map((wheel) => relative(out, wheel));
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * The kernel's memory snapshot, which the runner worker restores (web/src/runner/snapshot.js):
 * Pyodide started here in Node as the worker would start it, the kernel's wheels unpacked and
 * imported, and its memory saved as pyodide/kernel.snapshot, with kernel.snapshot.json naming its
 * sha256, the lock file's, and whether JSPI was there.
 */
async function kernelSnapshot(out) {
  const lockText = readFileSync(join(out, "pyodide-lock.json"), "utf8");
  const lock = JSON.parse(lockText);
  const { loadPyodide } = await import(pathToFileURL(join(out, "pyodide.mjs")).href);
  // Emscripten names the program (sys.argv, the environment's `_`) after process.argv[1]: without
  // one, "./this.program" as in a browser, not a path on the build's machine
  const argv = process.argv;
  process.argv = argv.slice(0, 1);
  const py = await loadPyodide({ indexURL: `${out}/`, packages: [], fullStdLib: false, _makeSnapshot: true })
    .finally(() => (process.argv = argv));
  unpackWheels(py, KERNEL_PACKAGES.map((name) => new Uint8Array(readFileSync(join(out, lock.packages[name].file_name)))));
  py.pyimport(KERNEL_MODULE);
  const snapshot = py.makeMemorySnapshot();
  writeFileSync(join(out, SNAPSHOT), snapshot);
  // Pyodide wires stack switching at start-up: a snapshot restores only where JSPI is as here
  // (npm run build passes --experimental-wasm-jspi, as Chromium has it)
  const jspi = typeof WebAssembly.Suspending === "function";
  writeFileSync(join(out, `${SNAPSHOT}.json`), JSON.stringify({ sha256: sha256(snapshot), lock_sha256: sha256(lockText), jspi }));
  return [SNAPSHOT, `${SNAPSHOT}.json`];
}

function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = join(repo, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

function catalog() {
  return execFileSync(python(), [join(web, "scripts", "catalog.py"), join(repo, "exercises")], {
    encoding: "utf8",
    env: { ...process.env, PYTHONPATH: join(repo, "practice") },
  });
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, "pyodide"), { recursive: true });
await esbuild.build({
  entryPoints: {
    app: join(web, "src", "app", "main.js"),
    course: join(web, "src", "app", "course.js"),
    worker: join(web, "src", "runner", "worker.js"),
    "hub-worker": join(web, "src", "runner", "hub-worker.js"),
    "rank-worker": join(web, "src", "runner", "rank-worker.js"),
    style: join(web, "src", "app", "style.css"),
  },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: "linked",
  outdir: dist,
  external: ["./pyodide/*"],
  loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
  assetNames: "fonts/[name]-[hash]",
  logLevel: "warning",
});
for (const name of PYODIDE_FILES) cpSync(join(web, "node_modules", "pyodide", name), join(dist, "pyodide", name));
cpSync(join(web, "src", "index.html"), join(dist, "index.html"));
cpSync(join(web, "src", "course.html"), join(dist, "course.html"));
const wheels = kernelPackages(join(dist, "pyodide"));
const snapshot = await kernelSnapshot(join(dist, "pyodide"));
writeFileSync(join(dist, "catalog.json"), catalog());
writeFileSync(join(dist, "manifest.json"), manifest());
const offline = offlineManifest();
writeFileSync(join(dist, "offline.json"), JSON.stringify(offline, null, 1));
writeFileSync(join(dist, "sw.js"), `self.OFFLINE = ${JSON.stringify(offline)};\n${readFileSync(join(web, "src", "sw.js"), "utf8")}`);
const saved = await precompress();
console.log(`built ${relative(repo, dist)} (precompressed: ${saved})`);

// The files the runner worker loads, with their sizes: the app downloads them first, so that it
// can show progress in bytes and name a file that fails.
function manifest() {
  const files = ["worker.js", ...[...PYODIDE_FILES, "pyodide-lock.json", ...wheels, ...snapshot].map((name) => `pyodide/${name}`)];
  return JSON.stringify({ files: Object.fromEntries(files.map((f) => [f, statSync(join(dist, f)).size])) });
}

// What the service worker (src/sw.js) caches for offline use, by content hash: every file the app
// and the runner load (not source maps, precompressed copies, or the fonts' older formats: woff2
// comes first in every @font-face), with its sha256 and size. Its version, a hash of the list,
// makes every build with a changed file a new service worker.
function offlineManifest() {
  const files = {};
  for (const name of filesUnder(dist).sort()) {
    if (/\.(map|br|gz|woff|ttf)$/.test(name) || name === "sw.js" || name === "offline.json") continue;
    const bytes = readFileSync(join(dist, name));
    files[name] = { sha256: sha256(bytes), size: bytes.length };
  }
  const version = createHash("sha256").update(JSON.stringify(files)).digest("hex").slice(0, 16);
  return { version, files };
}

// Precompressed copies (name.gz, name.br) that the judge server and serve.mjs send with
// Content-Encoding to browsers that accept them. Brotli at its best quality takes a minute for
// Pyodide's wasm, so results are cached by content hash (Pyodide's files never change).
async function precompress() {
  const cache = join(web, "node_modules", ".cache", "precompress");
  mkdirSync(cache, { recursive: true });
  const br = promisify(brotliCompress);
  const gz = promisify(gzip);
  let before = 0;
  let after = 0;
  await Promise.all(filesUnder(dist).filter((name) => COMPRESSIBLE.test(name)).map(async (name) => {
    const bytes = readFileSync(join(dist, name));
    const key = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
    const make = async (ext, compress) => {
      const cached = join(cache, `${key}.${ext}`);
      let out;
      if (existsSync(cached)) out = readFileSync(cached);
      else {
        out = await compress(bytes);
        writeFileSync(cached, out);
      }
      if (out.length <= MIN_GAIN * bytes.length) writeFileSync(join(dist, `${name}.${ext}`), out);
      return out.length;
    };
    const sizes = await Promise.all([
      make("br", (b) => br(b, { params: { [constants.BROTLI_PARAM_QUALITY]: b.length > BIG ? BIG_QUALITY : 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } })),
      make("gz", (b) => gz(b, { level: 9 })),
    ]);
    before += bytes.length;
    after += Math.min(bytes.length, ...sizes.map((size) => (size <= MIN_GAIN * bytes.length ? size : bytes.length)));
  }));
  return `${(before / 1e6).toFixed(1)} MB -> ${(after / 1e6).toFixed(1)} MB with brotli`;
}
