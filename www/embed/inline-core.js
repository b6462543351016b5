// The core for the classic bundle (www/pkg/standalone.js, scripts/standalone.mjs):
// the WebAssembly module travels inside the script, gzipped and in base64, and
// is instantiated from bytes. No fetch, so nothing the host must allow: a
// document with an opaque origin (<iframe sandbox="allow-scripts">) may run a
// classic script from any host, but may fetch a module or the .wasm only with
// CORS. www/main.js finds this loader and uses it instead of its fetch.
import WASM_GZIP_BASE64 from "hwscope:wasm-gzip-base64";
import init, * as core from "../pkg/hwscope.js";

globalThis.hwscopeInlineCore = async () => {
  if (typeof DecompressionStream !== "function") throw Object.assign(new Error("this browser has no DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later needed)"), { name: "BrowserTooOld" });
  const packed = Uint8Array.from(atob(WASM_GZIP_BASE64), (c) => c.charCodeAt(0));
  const bytes = await new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  await init({ module_or_path: bytes });
  return core;
};
