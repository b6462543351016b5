// The first things the page fetches after its entry: the step 0 of a built-in other
// than the default (?scenario=, a share link), the steps file a share link, an
// embed's #at= or ?from= asks for (core/first-view.js), started here because
// this module is small and arrives before main.js, which draws that step from it;
// then the core, at once: a steps file is a few KB, and the core waiting for main.js
// to arrive and run cost an embed ~150 ms of an idle link before its download began.
// index.html loads it async; when it cannot load (a sandboxed frame on a host
// without CORS), main.js fetches the file itself, and www/boot.js takes no notice.
// In the published build main.js and app.js import this module's imports from its
// bundle (scripts/bundle-page.mjs): one download; the page then needs it to run.
import { readOptions } from "./core/options.js";
import { fetchFirst, fetchSteps, firstView, startCore } from "./core/first-view.js";
import { DEFAULT, FIRSTS, LINKS, STEPS } from "./pkg/steps.js";

if (!globalThis.hwscopeInlineCore) {
  const view = firstView(readOptions(location.search), location.hash, LINKS, DEFAULT);
  fetchFirst(view, FIRSTS, DEFAULT);
  fetchSteps(view, STEPS);
  // The core's download starts while main.js is still on its way (main.js takes this
  // response; it checks the status).
  // The first core, as a rule (a share link needs the full one: core/first-view.js).
  const url = (startCore(location.hash, LINKS).glue === "first" ? new URL("./pkg/hwscope_first_bg.wasm", import.meta.url) : new URL("./pkg/hwscope_bg.wasm", import.meta.url)).href;
  // www/start.js may have asked for it already (an address with no fragment).
  if (globalThis.hwscopeCore?.url !== url) {
    const response = fetch(url);
    response.catch(() => {});
    globalThis.hwscopeCore = { url, response };
  }
}
