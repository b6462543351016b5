// A plain static host for the hosting tests (issue 18): files with a
// Content-Type by their extension and nothing else (no CORS, no CSP, no caching
// headers, no compression), as Python's http.server, nginx or Apache send by
// default. A mode makes it misbehave the way real hosts do:
//
//   plain        as above
//   wrong-mime   .wasm as application/octet-stream (hosts that do not know the type)
//   no-wasm      every .wasm answers 404 (an upload that left it out)
//   csp          Content-Security-Policy: script-src 'self' (no 'wasm-unsafe-eval') on every file
//   no-main      www/pkg/page/main.*.js (the published entry) and www/pkg/standalone.*.js answer 404 (the page's scripts missing)
//   no-scripts   every .js answers 404 (not even the boot guard or the element's script)
//   throws       www/pkg/page/main.*.js and www/pkg/standalone.*.js throw when they run (a broken upload)
//   slow-bundle  as plain, but www/pkg/standalone.*.js comes 3 s late (the sandboxed embed's one big script on a slow link)
//
//   const host = await startStaticHost({ root, mode: "csp" });   // host.url, await host.close()
//   node e2e/static-host.mjs DIR [MODE] [PORT]                    # the same, by hand
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { MIME_TYPES } from "../scripts/serve.mjs";

export const MODES = ["plain", "wrong-mime", "no-wasm", "csp", "no-main", "no-scripts", "throws", "slow-bundle"];
const MAIN = /\/www\/(pkg\/page\/)?main\.[0-9a-f]{10}\.js$|\/www\/pkg\/standalone\.[0-9a-f]{10}\.js$/;

/** Does this mode make `path` (URL path below the root) a 404? */
function gone(mode, path) {
  if (mode === "no-wasm") return path.endsWith(".wasm");
  if (mode === "no-main") return MAIN.test(path);
  if (mode === "no-scripts") return path.endsWith(".js");
  return false;
}

export async function startStaticHost({ root, mode = "plain", port = 0, host = "127.0.0.1" }) {
  if (!MODES.includes(mode)) throw new Error(`static-host: unknown mode ${mode} (${MODES.join(", ")})`);
  root = resolve(root);
  const server = createServer(async (req, res) => {
    let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path.endsWith("/")) path += "index.html";
    const file = normalize(join(root, path));
    const headers = mode === "csp" ? { "Content-Security-Policy": "script-src 'self'" } : {};
    const notFound = () => {
      res.writeHead(404, { ...headers, "Content-Type": "text/html" });
      res.end("<h1>404 Not Found</h1>");
    };
    if (!file.startsWith(root + sep) || gone(mode, path)) return notFound();
    try {
      if (!(await stat(file)).isFile()) return notFound();
      let body = await readFile(file);
      if (mode === "throws" && MAIN.test(path)) body = Buffer.from('throw new Error("a script of this upload is broken");\n');
      let type = (MIME_TYPES[extname(file)] ?? "application/octet-stream").replace(/; charset=utf-8/, "");
      if (mode === "wrong-mime" && file.endsWith(".wasm")) type = "application/octet-stream";
      if (mode === "slow-bundle" && /\/www\/pkg\/standalone\.[0-9a-f]{10}\.js$/.test(path)) await new Promise((ok) => setTimeout(ok, 3000));
      res.writeHead(200, { ...headers, "Content-Type": type, "Content-Length": body.length });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch {
      notFound();
    }
  });
  await new Promise((ok) => server.listen(port, host, ok));
  const url = `http://${host}:${server.address().port}`;
  return { url, close: () => new Promise((ok) => server.close(ok)) };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, mode = "plain", port = "8110"] = process.argv.slice(2);
  const h = await startStaticHost({ root: dir, mode, port: Number(port) });
  console.log(`static-host (${mode}): ${h.url}/`);
}
