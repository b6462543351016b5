// A tiny static file server for the playground. No dependencies.
//
//   node scripts/serve.mjs            # serves the repository root on http://127.0.0.1:8080/
//   PORT=9000 node scripts/serve.mjs  # another port (PORT=0: any free port); HOST overrides 127.0.0.1
//
// Tests import startServer() and run it on a free port:
//   const srv = await startServer({ port: 0, root });  // srv.url, srv.port, await srv.close()
//
// Only GET and HEAD. No directory listings (a directory serves its index.html), no files
// outside the root (also not through symlinks), no dotfiles (.git, .env, ...).
// Every response carries a strict Content-Security-Policy, the same one the page must
// work under when it is deployed, and `Access-Control-Allow-Origin: *` (see baseHeaders).
//
// Served like the published site: text and wasm compressed (brotli or gzip, as the
// browser accepts; kept in memory per file version), an ETag on every file (a
// revalidation is a 304), content-hashed names (`app.3f2a9c01de.js`, npm run dist)
// cached for a year as immutable, everything else revalidated (`no-cache`).
import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors *",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

export const MIME_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
};

const ROOT_DEFAULT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function baseHeaders(extra = {}) {
  return {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    // Public static files. A page inside <iframe sandbox="allow-scripts"> has an opaque
    // origin ("null"), so its module scripts and the wasm are cross-origin requests that
    // need this header (GitHub Pages sends it too).
    "Access-Control-Allow-Origin": "*",
    "Cache-Control": "no-store",
    ...extra,
  };
}

/** Types worth compressing (text, and the wasm, which gzip shrinks to ~40%). */
const COMPRESSIBLE = /^(text\/|application\/(json|wasm|javascript)|image\/svg)/;
/** A content-hashed name, as npm run dist writes them: cacheable for ever. */
const HASHED = /\.[0-9a-f]{10}\.[a-z0-9]+$/;
/** Compressed bodies by file version: {etag, br, gzip}. */
const compressed = new Map();

/** The compressed body of a file in the encoding the request accepts, or null. */
async function encoded(file, etag, accept) {
  const wants = (e) => new RegExp(`(^|[,\\s])${e}(;q=(?!0(\\.0*)?([,\\s]|$))[\\d.]+)?([,\\s]|$)`).test(accept);
  const encoding = wants("br") ? "br" : wants("gzip") ? "gzip" : null;
  if (!encoding) return null;
  let entry = compressed.get(file);
  if (entry?.etag !== etag) {
    entry = { etag };
    compressed.set(file, entry);
  }
  if (!entry[encoding]) {
    // A precompressed sibling (npm run dist writes the wasm's .br), else levels that
    // take milliseconds, not seconds, on the wasm.
    const sibling = encoding === "br" ? await readFile(`${file}.br`).catch(() => null) : null;
    const data = sibling ? null : await readFile(file);
    entry[encoding] = sibling ?? (encoding === "br" ? brotliCompressSync(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }) : gzipSync(data, { level: 6 }));
  }
  return { encoding, body: entry[encoding] };
}

function sendText(req, res, status, text, extra = {}) {
  const body = Buffer.from(`${text}\n`);
  res.writeHead(
    status,
    baseHeaders({
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Length": body.length,
      ...extra,
    }),
  );
  res.end(req.method === "HEAD" ? undefined : body);
}

const within = (root, p) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** Map a request path to a file under root, or null when it must not be served. */
async function locate(root, realRoot, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { status: 400 };
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return { status: 400 };
  const segments = decoded.split("/").filter((s) => s !== "");
  // Dotfiles and "..": never served. (Resolution below would catch "..", but be blunt.)
  if (segments.some((s) => s.startsWith("."))) return { status: 404 };
  let file = resolve(root, ...segments);
  if (!within(root, file)) return { status: 404 };

  let info;
  try {
    info = await stat(file);
  } catch {
    return { status: 404 };
  }
  if (info.isDirectory()) {
    if (!urlPath.endsWith("/")) {
      // Rebuilt from the segments, so "//host/dir" cannot become an off-site redirect.
      return { status: 301, location: `/${segments.map(encodeURIComponent).join("/")}/` };
    }
    file = join(file, "index.html");
    try {
      info = await stat(file);
    } catch {
      return { status: 404 };
    }
  }
  if (!info.isFile()) return { status: 404 };
  // Symlinks must not lead out of the root either.
  const real = await realpath(file).catch(() => null);
  if (real === null || !within(realRoot, real)) return { status: 404 };
  return { status: 200, file, size: info.size, mtime: info.mtimeMs };
}

/**
 * Start the static server.
 * @param {{port?: number, host?: string, root?: string, quiet?: boolean}} [options]
 *   port 0 picks a free port; root defaults to the repository root.
 * @returns {Promise<{server: import("node:http").Server, port: number, host: string,
 *   url: string, close: () => Promise<void>}>}
 */
export async function startServer({ port = 8080, host = "127.0.0.1", root = ROOT_DEFAULT, quiet = true } = {}) {
  root = resolve(root);
  const realRoot = await realpath(root);

  const server = createServer(async (req, res) => {
    const done = (status) => {
      if (!quiet) console.log(`${status} ${req.method} ${req.url}`);
    };
    try {
      if (req.method !== "GET" && req.method !== "HEAD") {
        sendText(req, res, 405, "Method Not Allowed", { Allow: "GET, HEAD" });
        return done(405);
      }
      // Split by hand: new URL() would read "//x/y" as host "x".
      const target = (req.url ?? "/").split("#")[0];
      const q = target.indexOf("?");
      const url = { pathname: q < 0 ? target : target.slice(0, q), search: q < 0 ? "" : target.slice(q) };
      const found = await locate(root, realRoot, url.pathname);
      if (found.status === 301) {
        res.writeHead(301, baseHeaders({ Location: found.location + url.search, "Content-Length": 0 }));
        res.end();
        return done(301);
      }
      if (found.status !== 200) {
        sendText(req, res, found.status, found.status === 400 ? "Bad Request" : "Not Found");
        return done(found.status);
      }
      const type = MIME_TYPES[extname(found.file).toLowerCase()] ?? "application/octet-stream";
      const etag = `"${found.size.toString(36)}-${Math.floor(found.mtime).toString(36)}"`;
      const cache = { ETag: etag, "Cache-Control": HASHED.test(found.file) ? "public, max-age=31536000, immutable" : "no-cache", Vary: "Accept-Encoding" };
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, baseHeaders(cache));
        res.end();
        return done(304);
      }
      const packed = COMPRESSIBLE.test(type) ? await encoded(found.file, etag, String(req.headers["accept-encoding"] ?? "")) : null;
      if (packed) {
        res.writeHead(200, baseHeaders({ "Content-Type": type, "Content-Encoding": packed.encoding, "Content-Length": packed.body.length, ...cache }));
        res.end(req.method === "HEAD" ? undefined : packed.body);
        return done(200);
      }
      res.writeHead(200, baseHeaders({ "Content-Type": type, "Content-Length": found.size, ...cache }));
      if (req.method === "HEAD") {
        res.end();
        return done(200);
      }
      const stream = createReadStream(found.file);
      stream.on("error", () => res.destroy());
      stream.pipe(res);
      done(200);
    } catch (err) {
      if (!res.headersSent) sendText(req, res, 500, "Internal Server Error");
      else res.destroy();
      console.error(err);
    }
  });

  await new Promise((resolveListen, rejectListen) => {
    server.once("error", rejectListen);
    server.listen(port, host, () => {
      server.off("error", rejectListen);
      resolveListen();
    });
  });
  const actualPort = server.address().port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    server,
    port: actualPort,
    host,
    url: `http://${urlHost}:${actualPort}`,
    close: () =>
      new Promise((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections?.();
      }),
  };
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const port = process.env.PORT === undefined ? 8080 : Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
    process.exit(2);
  }
  const host = process.env.HOST || "127.0.0.1";
  const root = process.env.ROOT ? resolve(process.env.ROOT) : ROOT_DEFAULT;
  const srv = await startServer({ port, host, root, quiet: !process.env.VERBOSE }).catch((err) => {
    console.error(`serve: cannot listen on ${host}:${port}: ${err.message}`);
    process.exit(1);
  });
  console.log(`hwscope: serving ${root} on ${srv.url}/ (Ctrl-C to stop)`);
  const stop = () => srv.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
