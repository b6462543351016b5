// Light, dark or auto (follows prefers-color-scheme). ?theme= wins over the
// saved choice; saving fails quietly where storage is blocked (sandboxed embeds).
// The host of an embed can change it later (embed/api.js).

const MODES = ["auto", "light", "dark"];

/** What the page keeps in this browser (the theme, the speed), or null where storage is blocked. */
export function saved(key = "hwscope-theme") {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keeps a choice; where storage is blocked it lasts for this page. */
export function keep(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* storage unavailable: the choice lasts for this page */
  }
}

export function setTheme(mode, button, persist = true) {
  if (!MODES.includes(mode)) mode = "auto";
  if (mode === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = mode;
  if (button) {
    // A phone's header leaves the word "Theme:" out (style.css); the accessible name keeps it.
    const word = document.createElement("span");
    word.className = "theme-word";
    word.textContent = "Theme: ";
    // …and says it with a sign, so "auto" alone is not a riddle.
    const icon = document.createElement("span");
    icon.className = "theme-icon";
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = "◐\u2009";
    button.replaceChildren(icon, word, mode);
    button.setAttribute("aria-label", `Theme: ${mode}`);
  }
  if (persist) keep("hwscope-theme", mode);
  return mode;
}

/** `opts` from core/options.js: its theme, else the saved choice (an embed takes its host's only). */
export function initTheme(button, opts) {
  let mode = setTheme(opts.theme ?? (opts.embed ? "auto" : saved()) ?? "auto", button, false);
  button.addEventListener("click", () => {
    mode = setTheme(MODES[(MODES.indexOf(mode) + 1) % MODES.length], button);
  });
}
