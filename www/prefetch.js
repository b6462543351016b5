// The first thing the page fetches after its entry: the steps file a share link,
// an embed's #at= or ?from= asks for (core/first-view.js), started here because
// this module is small and arrives before main.js, which draws that step from it;
// when no steps file is wanted, the core (the first stage is in main.js already).
// index.html loads it async; when it cannot load (a sandboxed frame on a host
// without CORS), main.js fetches the file itself, and www/boot.js takes no notice.
import { readOptions } from "./core/options.js";
import { fetchSteps, firstView } from "./core/first-view.js";
import { DEFAULT, LINKS, STEPS } from "./pkg/steps.js";

if (!globalThis.hwscopeInlineCore) {
  const view = firstView(readOptions(location.search), location.hash, LINKS, DEFAULT);
  // With nothing to wait for, the core too: its download starts while main.js is still
  // on its way (main.js takes this response; it checks the status).
  if (!fetchSteps(view, STEPS)) {
    const url = new URL("./pkg/hwscope_bg.wasm", import.meta.url).href;
    const response = fetch(url);
    response.catch(() => {});
    globalThis.hwscopeCore = { url, response };
  }
}
