// The WebAssembly core in Node (node/hwscope_bg.wasm: the Rust crate built with its
// `node` feature): instantiated once, on first use, synchronously.
import { readFileSync } from "node:fs";
import { cli, initSync, renderBlock } from "../node/hwscope.js";

let ready = false;

/** The wasm facade's functions, the module instantiated on the first call. */
export function core() {
  if (!ready) {
    initSync({ module: readFileSync(new URL("../node/hwscope_bg.wasm", import.meta.url)) });
    ready = true;
  }
  return { cli, renderBlock };
}
