// Failures shown on the page, never a blank or frozen page: a wasm that did
// not load, a Rust panic, or any uncaught error.

const banner = () => document.getElementById("banner");

export function showError(message, { fatal = false } = {}) {
  const b = banner();
  b.textContent = message;
  // A failure the page goes on after can be put away: the banner floats over the page's top.
  if (!fatal) {
    const close = document.createElement("button");
    close.type = "button";
    close.className = "link";
    close.textContent = "✕";
    close.setAttribute("aria-label", "Dismiss this message");
    close.addEventListener("click", () => (b.hidden = true));
    b.append(" ", close);
  }
  b.hidden = false;
  b.classList.toggle("fatal", fatal);
  if (fatal) {
    for (const el of document.querySelectorAll("#controls button, #controls input, #intervene button, #scenario, #settings-open")) el.disabled = true;
  }
}

export function clearError() {
  const b = banner();
  if (!b.classList.contains("fatal")) b.hidden = true;
}

export function catchAll() {
  const report = (err) => {
    const fatal = err?.name === "CoreFailure";
    showError(fatal ? err.message : `Something went wrong: ${err?.message ?? err}`, { fatal });
  };
  addEventListener("error", (e) => {
    // The browser's note that a resize observer's callback changed layout again
    // in the same frame is not a failure: the next frame delivers it.
    if (!e.error && /^ResizeObserver loop/.test(e.message ?? "")) return;
    report(e.error ?? e);
  });
  addEventListener("unhandledrejection", (e) => report(e.reason));
}
