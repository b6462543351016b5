// The boot guard: a small classic script that index.html loads (async: it does not
// compete with the first stage's modules), so that the playground never leaves a
// blank box (issue 18).
//
// - In a document with an opaque origin (<iframe sandbox="allow-scripts">),
//   module scripts and the .wasm are cross-origin requests that need CORS
//   headers a plain static host does not send. A classic script needs none:
//   when the module script fails there, this loads www/pkg/standalone.js (the
//   page with its core inside, scripts/standalone.mjs).
// - Whatever fails before the playground is live (a file that 404s, a script
//   the browser refuses, WebAssembly blocked by the host's Content-Security-
//   Policy, a script that throws, nothing after 20 s) is shown in the page:
//   what failed, the likely cause, what the host can do, a link that opens the
//   playground, and a picture of the step asked for, drawn when the site was
//   built (www/pkg/stills/, scripts/stills.mjs).
// - If even this script cannot run, style.css shows the static form of the
//   same box after a few seconds (index.html's #boot-fail).
//
// main.js sets <html data-boot="running"> when it starts and "drawn" when the
// first stage is up, and calls hwscopeBoot.fail(what, error, url) when the core
// or a module does not load (or leaves hwscopeFailed for this script, if it has
// not run yet); app.js sets data-boot="live" when the controls work (from then
// on failures are the page's banner's). A module script that never ran (it or a
// module it imports did not load) is found at the window's load event.
(function () {
  "use strict";
  var doc = document;
  var root = doc.documentElement;
  var me = doc.currentScript;
  var opaque = self.origin === "null";
  var failed = false;
  var pending = false;
  var wasmBlocked = null;
  var TIMEOUT_MS = 20000;

  root.dataset.guard = "1";
  var live = function () {
    return root.dataset.boot === "live";
  };
  var short = function (url) {
    try {
      var u = new URL(url, location.href);
      return u.pathname.split("/").pop() || u.pathname;
    } catch (e) {
      return String(url);
    }
  };

  /** The box's words for one failure: [what, cause, fix]. */
  function explain(what, err, url, probe) {
    var msg = String((err && err.message) || err || "");
    var name = short(url || "");
    if (wasmBlocked || /Content.Security.Policy|wasm-unsafe-eval|wasm-eval/i.test(msg)) {
      return [
        "The simulation core (WebAssembly) was refused by this site's Content-Security-Policy.",
        "The server sends a Content-Security-Policy whose script-src lacks 'wasm-unsafe-eval', so the browser will not compile WebAssembly" + (wasmBlocked ? " (policy: " + wasmBlocked + ")." : "."),
        "On the host: add 'wasm-unsafe-eval' to script-src for hwscope's files (script-src 'self' 'wasm-unsafe-eval'), or serve them without a CSP.",
      ];
    }
    if (err && err.name === "BrowserTooOld") {
      return ["This browser cannot run the playground: " + msg + ".", "An old browser, or one with WebAssembly switched off (a hardened or lockdown mode).", "Open the playground in a current Chrome, Edge, Firefox or Safari."];
    }
    if (what === "timeout") {
      return ["The playground has not started after " + TIMEOUT_MS / 1000 + " s.", "A very slow connection, or a file that never finished loading.", "Reload the page. If it stays, check that the host serves every file of the published folder."];
    }
    if (what === "throw") {
      // A sandboxed frame's scripts count as another origin's: the browser hides their errors' text.
      var said = /^Script error\.?$/.test(msg) || !msg ? " (its text is hidden from a sandboxed frame; the browser's console shows it)" : ": " + msg.replace(/\.$/, "");
      return [
        "The playground's script stopped with an error" + said + (url ? " (" + name + ")" : "") + ".",
        "Files from two different builds, a damaged upload, or a browser too old for the playground (it needs ES2020 and WebAssembly).",
        "On the host: publish the whole folder `npm run dist` wrote, from one build. Open the playground below to see whether it runs there.",
      ];
    }
    var status = (err && err.status) || (probe && probe.status);
    var kind = what === "core" ? "The simulation core (" + name + ")" : "A script of the playground (" + name + ")";
    if (status && status !== 200) {
      return [
        kind + " could not be downloaded: HTTP " + status + ".",
        status === 404 ? "The file is not on the server: the published folder is incomplete, or holds files from two builds (every name carries its content's hash)." : "The server answered with an error instead of the file.",
        "On the host: publish the whole folder `npm run dist` wrote, from one build, keeping its paths.",
      ];
    }
    if (what === "core" && (err instanceof WebAssembly.CompileError || /magic|wasm|WebAssembly/i.test(msg))) {
      return [kind + " is not a WebAssembly module: " + msg + ".", "The server sent something else under its name (an HTML error page, say), or the file was damaged in upload.", "On the host: upload " + name + " again as a binary file from the folder `npm run dist` wrote."];
    }
    if (probe && probe.type && !/javascript|ecmascript/i.test(probe.type) && what !== "core") {
      return [kind + " was refused by the browser: it came as " + probe.type + ".", "Browsers run a module script only when it is served as JavaScript.", "On the host: serve .js files as text/javascript (and .wasm as application/wasm)."];
    }
    if (opaque) {
      return [
        kind + " could not be loaded.",
        "It is missing on the host, or the host blocks it. This page is in a sandboxed frame, so it loads one classic script that needs no CORS headers.",
        "On the host: publish the whole folder `npm run dist` wrote, from one build; a Content-Security-Policy must allow script-src 'self'.",
      ];
    }
    return [
      kind + " did not run" + (msg ? ": " + msg : "") + ".",
      "The server has the file" + (probe && probe.type ? " (as " + probe.type + ")" : "") + ", so the browser refused it (a Content-Security-Policy whose script-src lacks 'self') or it stopped with an error as it started (files from two builds?); the browser's console names which.",
      "On the host: publish the whole folder `npm run dist` wrote, from one build; serve .js as text/javascript and allow script-src 'self' 'wasm-unsafe-eval'.",
    ];
  }

  /** The step an address asks for: a built-in and a step, or null for a share link. */
  function asked() {
    var q = new URLSearchParams(location.search);
    var hash = location.hash.replace(/^#/, "");
    if (/(^|&)v=/.test(hash)) return null;
    var at = /(^|&)at=(\d+)/.exec(hash);
    var step = at ? Number(at[2]) : Number(q.get("from")) || 0;
    return { scenario: q.get("scenario") || "seed-walkthrough", step: step };
  }

  /** Stills, drawn when the site was built (scripts/stills.mjs): every 4th step up to 64. */
  var STILL_EVERY = 4;
  var STILL_LAST = 64;
  function still(scenario, step) {
    return ((me && me.getAttribute("data-stills")) || "www/pkg/stills/") + scenario + "-" + step + ".svg";
  }

  /** The full playground's address for the same scenario and step (a new tab, top level). */
  function fullAddress() {
    var u = new URL(location.href);
    ["embed", "fit", "origin", "controls"].forEach(function (k) {
      u.searchParams.delete(k);
    });
    return u.href;
  }

  function show(words) {
    if (failed) return;
    failed = true;
    var box = doc.getElementById("boot-fail");
    if (!box) return;
    var set = function (sel, text) {
      var el = box.querySelector(sel);
      if (el) el.textContent = text;
    };
    set(".boot-what", words[0]);
    set(".boot-cause", "Likely cause: " + words[1]);
    set(".boot-fix", "Fix: " + words[2]);
    box.querySelector(".boot-open").href = fullAddress();
    var want = asked();
    var img = box.querySelector(".boot-still");
    var cap = box.querySelector(".boot-still-cap");
    if (want && img) {
      // The nearest still at or before the asked step.
      var step = Math.min(STILL_LAST, want.step - (want.step % STILL_EVERY));
      var tried0 = step === 0;
      img.onerror = function () {
        if (tried0) {
          img.hidden = true;
          cap.hidden = true;
          return;
        }
        tried0 = true;
        step = 0;
        img.src = still(want.scenario, 0);
        cap.textContent = caption(want, 0);
      };
      img.src = still(want.scenario, step);
      img.alt = "Step " + step + " of " + want.scenario + ", as a static picture";
      cap.textContent = caption(want, step);
      img.hidden = false;
      cap.hidden = false;
    }
    // An embed's box fills its frame (style.css), also when main.js never ran to say it is one.
    if (new URLSearchParams(location.search).get("embed") === "1") root.classList.add("embed");
    root.classList.add("boot-failed");
  }
  /**
   * While the classic bundle downloads (a sandboxed frame on a host without CORS: the
   * bundle is the core too, ~260 KB gzipped), the picture of the asked step drawn when
   * the site was built, so that the frame shows the figure at once. Only the exact step
   * (stills are every 4th step up to 64) and only when the picture's colours (the
   * reader's colour scheme) are the theme asked for; otherwise the words alone.
   * Calls `then` when the picture has come (or failed, or there is none).
   */
  function preview(then) {
    var want = asked();
    if (!want || want.step % STILL_EVERY !== 0 || want.step > STILL_LAST || !doc.body) return then();
    var theme = new URLSearchParams(location.search).get("theme");
    var dark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
    if ((theme === "dark" && !dark) || (theme === "light" && dark)) return then();
    var fig = doc.createElement("figure");
    fig.className = "boot-preview";
    fig.setAttribute("aria-busy", "true");
    var img = doc.createElement("img");
    img.alt = "Step " + want.step + " of " + want.scenario + ", as a static picture while the playground loads";
    img.onload = function () {
      // The frame's first picture (e2e/bench-page.mjs reads it).
      if (self.performance && performance.mark) performance.mark("hwscope-still");
      then();
    };
    img.onerror = function () {
      fig.remove();
      then();
    };
    img.src = still(want.scenario, want.step);
    var cap = doc.createElement("figcaption");
    cap.textContent = "A picture of step " + want.step + ", drawn when the site was built: the playground itself is on its way.";
    fig.appendChild(img);
    fig.appendChild(cap);
    doc.body.insertBefore(fig, doc.body.firstChild);
  }
  function caption(want, step) {
    return "Step " + step + " of " + want.scenario + ", drawn when the site was built" + (step === want.step ? "." : " (the nearest picture to step " + want.step + ").");
  }

  /** Asks the server about a same-origin file that failed: {status, type}, or null. */
  function probe(url) {
    if (opaque || !url || typeof fetch !== "function") return Promise.resolve(null);
    return fetch(url, { method: "HEAD", cache: "no-store" }).then(
      function (r) {
        return { status: r.status, type: r.headers.get("content-type") || "" };
      },
      function () {
        return null;
      },
    );
  }

  function fail(what, err, url) {
    if (pending || failed || live()) return;
    pending = true;
    var m = err && /dynamically imported module: (\S+)/.exec(err.message || "");
    if (!url && m) url = m[1];
    if (!url && err && err.url) url = err.url;
    if (what === "core" || what === "throw") return show(explain(what, err, url, null));
    // A module that fails fails its whole graph: find the file the server does not give.
    var files = [url].concat([].map.call(doc.querySelectorAll('link[rel="modulepreload"]'), function (l) {
      return l.href;
    }));
    var next = function (i) {
      if (i >= files.length) return probe(url).then(function (p) {
        show(explain(what, err, url, p));
      });
      return probe(files[i]).then(function (p) {
        if (p && p.status !== 200) show(explain(what, err, files[i], p));
        else next(i + 1);
      });
    };
    next(0);
  }

  window.hwscopeBoot = { fail: fail };

  addEventListener("securitypolicyviolation", function (e) {
    if (e.blockedURI === "wasm-eval" || /wasm/.test(e.blockedURI)) wasmBlocked = e.originalPolicy || e.violatedDirective;
  });
  // A script or a preloaded module that does not load fires "error" on its element (it
  // does not bubble: listen while capturing); an uncaught exception fires it on window.
  addEventListener(
    "error",
    function (e) {
      var t = e.target;
      if (t && (t.tagName === "SCRIPT" || t.tagName === "LINK")) {
        if (t.tagName === "LINK" && !/preload/.test(t.rel)) return;
        // What only speeds the start up (www/prefetch.js): the page runs without it.
        if (t.hasAttribute("data-optional")) return;
        // In an opaque origin the module copy is expected to fail: the bundle runs instead.
        if (opaque && t !== bundle) return;
        fail("script", null, t.src || t.href);
      } else if (e.error || e.message) {
        if (failed || live()) return;
        fail("throw", e.error || e.message, e.filename);
      }
    },
    true,
  );
  addEventListener("unhandledrejection", function (e) {
    if (!live()) fail("throw", e.reason);
  });
  setTimeout(function () {
    if (!live()) fail("timeout");
  }, TIMEOUT_MS);

  // What happened before this script ran: main.js's own report, or a module script
  // that never ran (known once every script has had its turn, at load).
  if (window.hwscopeFailed) fail.apply(null, window.hwscopeFailed);
  var afterLoad = function () {
    var main = doc.querySelector('script[type="module"]');
    if (!opaque && main && !root.dataset.boot) fail("script", null, main.src);
  };
  if (doc.readyState === "complete") afterLoad();
  else addEventListener("load", afterLoad);
  if (typeof WebAssembly !== "object") {
    return show(explain("core", { name: "BrowserTooOld", message: "it has no WebAssembly" }));
  }
  var bundle = null;
  if (opaque && me) {
    // What main.js would set before the first paint: the embed's layout and its theme.
    var q = new URLSearchParams(location.search);
    if (q.get("embed") === "1") root.classList.add("embed");
    if (q.get("fit") === "1") root.classList.add("fit");
    if (q.get("theme") === "light" || q.get("theme") === "dark") root.dataset.theme = q.get("theme");
    // The modules first: a host that sends CORS headers runs them as fast as anywhere.
    // When they cannot load (no CORS), the classic bundle, which needs none.
    var classic = function () {
      if (bundle || root.dataset.boot) return;
      bundle = doc.createElement("script");
      bundle.src = me.getAttribute("data-standalone-src");
      bundle.async = false;
      // The picture first (a browser fetches scripts before images, and the bundle is
      // 30 times its size): the bundle starts when it has come, or after 400 ms.
      var started = false;
      var start = function () {
        if (started) return;
        started = true;
        doc.head.appendChild(bundle);
      };
      preview(start);
      setTimeout(start, 400);
    };
    var mainScript = doc.querySelector('script[type="module"]');
    if (mainScript) mainScript.addEventListener("error", classic);
    // Its error may have come before this script ran: then the load event tells.
    if (doc.readyState === "complete") classic();
    else addEventListener("load", classic);
  }
})();
