// Playback controls: buttons, the scrubber over the whole run, the speed on
// a log scale, and the keyboard (Space, ←, →, Home, End, ?).

const PARTS = { play: "#play", step: "#back,#fwd", ends: "#first,#end", scrub: ".scrub", speed: ".speed", reset: "#reset" };

/** Hides the controls not asked for (core/options.js); `text` shows the step's sentence as a caption. */
export function applyControls(doc, controls) {
  for (const [name, sel] of Object.entries(PARTS)) for (const el of doc.querySelectorAll(sel)) el.classList.toggle("off", !controls.has(name));
  doc.getElementById("controls").classList.toggle("off", !Object.keys(PARTS).some((c) => controls.has(c)));
  doc.getElementById("live").classList.toggle("caption", controls.has("text"));
}

/** `reset` reloads the scenario, dropping interventions; Home only goes to step 0. */
export function createControls(doc, player, sim, reset) {
  const $ = (id) => doc.getElementById(id);
  const play = $("play");
  const scrub = $("scrub");
  const scrubOut = $("scrub-out");
  const speed = $("speed");
  const speedOut = $("speed-out");
  const help = $("help");

  const go = (n) => {
    player.pause();
    player.go(n);
  };

  $("reset").addEventListener("click", reset);
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(player.step - 1));
  $("fwd").addEventListener("click", () => go(player.step + 1));
  $("end").addEventListener("click", () => go(sim.known - 1));
  play.addEventListener("click", () => player.toggle());
  scrub.addEventListener("input", () => go(Number(scrub.value)));

  function setSpeed() {
    player.speed = 2 ** Number(speed.value);
    const s = player.speed;
    speedOut.textContent = s >= 1 ? `×${s % 1 ? s.toFixed(1) : s}` : `×1/${Math.round(1 / s)}`;
  }
  speed.addEventListener("input", setSpeed);
  setSpeed();

  $("help-open").addEventListener("click", () => help.showModal());

  doc.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || doc.querySelector("dialog[open]")) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    const actions = {
      " ": () => player.toggle(),
      ArrowLeft: () => go(player.step - 1),
      ArrowRight: () => go(player.step + 1),
      Home: () => go(0),
      End: () => go(sim.known - 1),
      "?": () => help.showModal(),
    };
    const action = actions[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  });

  return {
    /** Reflects the shown step and the run's known length. */
    update(step) {
      // A range-locked embed scrubs within its range only.
      const last = Math.min(player.to, sim.known - 1);
      scrub.min = player.from;
      scrub.max = Math.max(player.from, last);
      scrub.value = step;
      scrubOut.textContent = `${step} / ${last}${sim.done || last === player.to ? "" : "+"}`;
    },
    playing(on) {
      play.textContent = on ? "Pause" : "Play";
      play.setAttribute("aria-pressed", on);
    },
  };
}
