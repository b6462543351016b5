// The prose on embed.html drives its embeds: buttons send commands to the
// <hwscope-playground> element, and events from both embeds are shown.

const walk = document.getElementById("walk");
const walkLog = document.getElementById("walk-log");

document.addEventListener("click", (e) => {
  const b = e.target.closest("[data-seek], [data-cmd]");
  if (!b) return;
  if (b.dataset.seek) walk.seek(Number(b.dataset.seek));
  else walk[b.dataset.cmd]();
});
walk.addEventListener("hwscope:ready", (e) => (walkLog.textContent = `ready at step ${e.detail.at}`));
walk.addEventListener("hwscope:step", (e) => (walkLog.textContent = `step ${e.detail.at}: ${e.detail.text}`));
walk.addEventListener("hwscope:hw-changed", (e) => {
  const { broker, from, to, at } = e.detail;
  walkLog.textContent = `step ${at}: broker ${broker}'s HW ${from} → ${to}`;
});

// The page's own theme, as a docs site would set it; the element follows it.
const toggle = document.getElementById("page-theme");
toggle.addEventListener("click", () => {
  const dark = document.documentElement.dataset.theme !== "dark";
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  toggle.setAttribute("aria-pressed", dark);
  toggle.textContent = dark ? "Light page" : "Dark page";
});

// The plain iframe, by hand. It is sandboxed, so its messages come from origin
// "null": check that they come from its window instead.
const raw = document.getElementById("raw");
const rawLog = document.getElementById("raw-log");
addEventListener("message", (e) => {
  if (e.source !== raw.contentWindow || e.data?.v !== 1) return;
  if (e.data.type === "hwscope:resize") {
    raw.height = Math.min(4000, e.data.height);
    raw.dataset.told = "1";
  }
  if (e.data.type === "hwscope:hw-changed") rawLog.textContent = `step ${e.data.at}: broker ${e.data.broker}'s HW ${e.data.from} → ${e.data.to}`;
});
