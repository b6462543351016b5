// The plain snippets fit their embed: an <iframe> with ?embed=1&fit=1 (the
// Share dialog's snippet, with no host script) fills its frame with the stage scaled to what is left,
// so its Play button and its "open full playground" link are never cut off,
// whatever height the snippet gives it; the Share dialog's snippet asks for a
// height that fits the common scenarios at their natural size.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertNoErrors, launch } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

/** Opens a host page holding `html` (a made-up page: the sizing is what is tested here). */
async function host(html) {
  const page = await env.newPage();
  const url = `${env.baseURL}/host-page-for-tests.html`;
  await page.route(url, (r) => r.fulfill({ contentType: "text/html", body: `<!doctype html><title>host</title><body style="margin:0">${html}</body>` }));
  await page.goto(url);
  const frame = await (await page.waitForSelector("iframe")).contentFrame();
  await frame.waitForSelector("#status[data-step]");
  return { page, frame };
}

/** How the embed sits in its frame: overflow, and whether Play and the link are fully inside. */
const fit = (frame) =>
  frame.evaluate(() => {
    const inside = (sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight + 0.5;
    };
    return { overflow: document.documentElement.scrollHeight - innerHeight, play: inside("#play"), link: inside("#open-full"), stage: Math.round(document.getElementById("stage").getBoundingClientRect().height) };
  });

// The step shown: follower-fetch-consumer's p1 acknowledgement (step 14 since heartbeats are steps, issue 11).
for (const [w, h, scenario, at] of [[800, 480, "steady-load", 12], [800, 640, "seed-walkthrough", 12], [360, 480, "follower-fetch-consumer", 14]]) {
  test(`an iframe ${w}×${h} of ${scenario} shows all of its embed`, async () => {
    const { page, frame } = await host(`<iframe src="${env.baseURL}/?embed=1&fit=1&scenario=${scenario}#at=${at}" width="${w}" height="${h}" style="border:0" title="t"></iframe>`);
    const f = await fit(frame);
    assert.ok(f.overflow <= 0, `no scrolling inside the frame: ${JSON.stringify(f)}`);
    assert.ok(f.play && f.link, `Play and the link are inside: ${JSON.stringify(f)}`);
    assert.ok(f.stage > 150, `the stage keeps a readable size: ${JSON.stringify(f)}`);
    assertNoErrors(page);
    await page.close();
  });
}

test("the Share dialog's iframe snippet fits seed-walkthrough at 800 px without scaling", async () => {
  const page = await env.open("/?scenario=seed-walkthrough#at=5");
  await page.waitForSelector("#status[data-step]");
  await page.click("#share-open");
  await page.waitForSelector("#share[open]");
  const snippet = await page.inputValue("#share-iframe");
  // The embed's own height (www/embed/size.js: seed-walkthrough, compact controls, 360 px or 800 px wide).
  assert.match(snippet, /height="648"/);
  assert.match(snippet, /\?embed=1&amp;fit=1&amp;theme=auto#v=1/);
  await page.close();
  const { page: p2, frame } = await host(snippet.replace(/width="100%"/, 'width="800"'));
  const f = await fit(frame);
  assert.ok(f.overflow <= 0 && f.play && f.link, JSON.stringify(f));
  // At its natural height: the stage is not squeezed (seed-walkthrough's stage is ~430 px).
  assert.ok(f.stage >= 400, JSON.stringify(f));
  await p2.close();
});
