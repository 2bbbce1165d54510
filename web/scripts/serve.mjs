// A static server for web/dist with the cross-origin isolation headers the rank-worker fallback
// needs (SharedArrayBuffer), the build's precompressed copies (name.br, name.gz) sent with
// Content-Encoding to browsers that accept them, and ETags (the app downloads Python's files
// once, with progress; the runner worker's own requests then revalidate them: 304).
// Usage: node scripts/serve.mjs [port] [--no-isolation] [--no-compression]
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm",
  ".zip": "application/zip", ".map": "application/json", ".woff2": "font/woff2",
  ".woff": "font/woff", ".ttf": "font/ttf", ".png": "image/png",
};

/** Which precompressed copy of `file` to send for `acceptEncoding`: [encoding, path] or null. */
export function precompressed(file, acceptEncoding = "") {
  const accepted = new Set(acceptEncoding.split(",").map((part) => part.split(";")[0].trim().toLowerCase()));
  for (const [encoding, ext] of [["br", ".br"], ["gzip", ".gz"]]) {
    if (!accepted.has(encoding)) continue;
    try {
      if (statSync(file + ext).isFile()) return [encoding, file + ext];
    } catch {}
  }
  return null;
}

/** Serve `root` on `port` (0: any free one); resolves with the listening server. */
export function serve(root, port = 0, isolation = true, { compression = true } = {}) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    let file = join(root, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, "index.html");
      statSync(file);
    } catch {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    const headers = { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", "Cache-Control": "no-cache" };
    if (isolation) Object.assign(headers, { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" });
    const chosen = compression ? precompressed(file, req.headers["accept-encoding"]) : null;
    const body = chosen ? chosen[1] : file;
    const stat = statSync(body);
    headers.ETag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}${chosen ? `-${chosen[0]}` : ""}"`;
    headers.Vary = "Accept-Encoding";
    if (req.headers["if-none-match"] === headers.ETag) return res.writeHead(304, headers).end();
    if (chosen) headers["Content-Encoding"] = chosen[0];
    headers["Content-Length"] = stat.size;
    res.writeHead(200, headers);
    if (req.method === "HEAD") return res.end();
    createReadStream(body).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = fileURLToPath(new URL("../dist", import.meta.url));
  const port = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 8000);
  const server = await serve(dist, port, !process.argv.includes("--no-isolation"), { compression: !process.argv.includes("--no-compression") });
  console.log(`serving ${dist} at http://127.0.0.1:${server.address().port}/`);
}
