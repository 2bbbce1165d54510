// Builds web/dist: the bundled app and runner, Pyodide's own files, the kernel zip, the catalog.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { zipSync } from "fflate";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(web, "..");
const dist = join(web, "dist");

// Kernel modules that import torch (the real runtime) cannot run in Pyodide, and bench is the
// CLI's alone: both are left out.
const IMPORTS_TORCH = /^\s*(import|from) torch\b/m;
const CLI_ONLY = /^bench\//;
// never published: an exercise's reference and known-wrong solutions (cjudge.exercises.PRIVATE_FILES)
const PRIVATE = /^[^/]+\/(solution\.py$|wrong\/)/;
// precompressed copies: of these files, when they are at most 90% of the original
const COMPRESSIBLE = /\.(js|mjs|css|json|wasm|html|svg|zip|ttf)$/;
const MIN_GAIN = 0.9; // keep a copy only if it is at most 90% of the original
const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

function filesUnder(root) {
  return readdirSync(root, { recursive: true })
    .map((name) => name.split(sep).join("/"))
    .filter((name) => statSync(join(root, name)).isFile() && !name.includes("__pycache__"));
}

function kernelZip() {
  const entries = {};
  const add = (root, prefix, keep = () => true) => {
    for (const name of filesUnder(root)) {
      const bytes = readFileSync(join(root, name));
      if (keep(name, bytes.toString())) entries[`${prefix}/${name}`] = bytes;
    }
  };
  add(join(repo, "practice", "cjudge"), "cjudge", (name, text) => !CLI_ONLY.test(name) && !IMPORTS_TORCH.test(text));
  add(join(repo, "exercises"), "exercises", (name) => !PRIVATE.test(name));
  add(join(web, "src", "py"), "cjudge_web");
  return zipSync(entries, { level: 6 });
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
writeFileSync(join(dist, "kernel.zip"), kernelZip());
writeFileSync(join(dist, "catalog.json"), catalog());
writeFileSync(join(dist, "manifest.json"), manifest());
const saved = await precompress();
console.log(`built ${relative(repo, dist)} (precompressed: ${saved})`);

// The files the runner worker loads, with their sizes: the app downloads them first, so that it
// can show progress in bytes and name a file that fails.
function manifest() {
  const files = ["worker.js", "kernel.zip", ...PYODIDE_FILES.map((name) => `pyodide/${name}`)];
  return JSON.stringify({ files: Object.fromEntries(files.map((f) => [f, statSync(join(dist, f)).size])) });
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
      make("br", (b) => br(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } })),
      make("gz", (b) => gz(b, { level: 9 })),
    ]);
    before += bytes.length;
    after += Math.min(bytes.length, ...sizes.map((size) => (size <= MIN_GAIN * bytes.length ? size : bytes.length)));
  }));
  return `${(before / 1e6).toFixed(1)} MB -> ${(after / 1e6).toFixed(1)} MB with brotli`;
}
