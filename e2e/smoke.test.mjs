// Smoke test: the playground page loads, under the strict CSP, without errors.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertNoErrors, launch } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

test("/ loads: title names hwscope, no console errors, no page errors", async () => {
  const page = await env.open("/");
  // Let module scripts, the wasm fetch and its instantiation finish (or fail loudly).
  await page.waitForLoadState("networkidle");
  assert.match(await page.title(), /hwscope/i);
  assertNoErrors(page);
  await page.close();
});

test("the server sends the CSP and serves the wasm as application/wasm", async () => {
  const html = await fetch(`${env.baseURL}/`);
  assert.equal(html.status, 200);
  assert.match(html.headers.get("content-security-policy") ?? "", /script-src 'self' 'wasm-unsafe-eval'/);
  const wasm = await fetch(`${env.baseURL}/www/pkg/hwscope_bg.wasm`, { method: "HEAD" });
  assert.equal(wasm.status, 200, "www/pkg/hwscope_bg.wasm is missing: run `npm run build`");
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
});
