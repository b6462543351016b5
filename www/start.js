// The first file the page asks for, and the smallest (a few hundred bytes): unless the
// address is a share link (which may need the full core: core/first-view.js
// startCore, whose test for "not a link" this repeats), it starts the first core's
// download at once, ~100 ms before www/prefetch.js (which carries the built-ins' keys
// and steps files) could. On 1.6 Mbps the core is the first load's largest file and
// arrives last, so each millisecond its download starts earlier is one the page is
// interactive sooner (docs/performance.md, "The core asked for first"). A steps file
// (#at=, ?from=) is still asked for by prefetch.js, beside the core.
// main.js takes the response (globalThis.hwscopeCore), as it takes prefetch.js's.
const fragment = location.hash.replace(/^#/, "");
const notLink = !fragment || (fragment.length <= 64 && !fragment.includes("=")) || (fragment.length < 99 && !/(^|&)[vs]=/.test(fragment) && new URLSearchParams(fragment).get("at"));
// A step past the steps files' (64: startCore's LAST_STEP) needs the full core.
if (!globalThis.hwscopeInlineCore && notLink && !(new URLSearchParams(fragment).get("at") > 64)) {
  const url = new URL("./pkg/hwscope_first_bg.wasm", import.meta.url).href;
  const response = fetch(url);
  response.catch(() => {});
  globalThis.hwscopeCore = { url, response };
}
