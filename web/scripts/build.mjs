// Builds web/dist: the bundled app and runner, Pyodide's own files, the kernel zip, the catalog.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { zipSync } from "fflate";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(web, "..");
const dist = join(web, "dist");

// Kernel modules that import torch (the real runtime) cannot run in Pyodide, and bench is the
// CLI's alone: both are left out.
const IMPORTS_TORCH = /^\s*(import|from) torch\b/m;
const CLI_ONLY = /^bench\//;
// never published: an exercise's reference and known-wrong solutions (cjudge.exercises.PRIVATE_FILES)
const PRIVATE = /^[^/]+\/(solution\.py$|wrong\/)/;
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
writeFileSync(join(dist, "kernel.zip"), kernelZip());
writeFileSync(join(dist, "catalog.json"), catalog());
console.log(`built ${relative(repo, dist)}`);
