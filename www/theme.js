// Light, dark or auto (follows prefers-color-scheme). ?theme= wins over the
// saved choice; saving fails quietly where storage is blocked (sandboxed embeds).

const MODES = ["auto", "light", "dark"];

function saved() {
  try {
    return localStorage.getItem("hwscope-theme");
  } catch {
    return null;
  }
}

export function setTheme(mode, button, persist = true) {
  if (!MODES.includes(mode)) mode = "auto";
  if (mode === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = mode;
  if (button) button.textContent = `Theme: ${mode}`;
  if (persist) {
    try {
      localStorage.setItem("hwscope-theme", mode);
    } catch {
      /* storage unavailable: the choice lasts for this page */
    }
  }
  return mode;
}

export function initTheme(button) {
  let mode = setTheme(new URLSearchParams(location.search).get("theme") ?? saved() ?? "auto", button, false);
  button.addEventListener("click", () => {
    mode = setTheme(MODES[(MODES.indexOf(mode) + 1) % MODES.length], button);
  });
}
