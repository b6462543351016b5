// Playback controls: buttons, the scrubber over the run as far as it is
// computed, the speed on a log scale, the keyboard (Space, ←, →, Home, End, ?,
// Esc), and the progress of computing that a user asked for, with its Stop.
//
// End goes to the furthest step computed; at that step, End (again, or held)
// computes further (core/frontier.js), and the stage follows as it goes.

export { applyControls } from "../core/chrome.js";

import { fmt } from "../core/dom.js";
import { keep, saved } from "../core/theme.js";
/** What takes Space and Enter for itself when it has focus. */
const CONTROL = "button, a[href], summary, select, input, textarea, label, [role=button], [role=link], [role=checkbox], [role=radio], [role=option], [role=tab], [contenteditable]";
/** Where the page keeps the speed (the slider's value, a power of two). */
const SPEED_KEY = "hwscope-speed";
/** How often, while End computes further, the stage moves on to the furthest step. */
const FOLLOW_MS = 250;

/** `reset` reloads the scenario, dropping interventions; Home only goes to step 0.
 *  `frontier` computes ahead on demand (core/frontier.js). */
export function createControls(doc, player, sim, frontier, reset) {
  const $ = (id) => doc.getElementById(id);
  const play = $("play");
  const scrub = $("scrub");
  const scrubOut = $("scrub-out");
  const speed = $("speed");
  const speedOut = $("speed-out");
  const help = $("help");
  const computing = $("computing");
  const computingWhat = $("computing-what");
  const computingCount = $("computing-count");

  // While End computes further, the stage follows the furthest step; any other move ends that.
  let following = false;
  function interrupt() {
    if (!following) return;
    following = false;
    if (frontier.job?.kind === "more") frontier.stop();
  }
  const go = (n) => {
    interrupt();
    player.pause();
    player.go(n);
  };

  $("reset").addEventListener("click", reset);
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(player.step - 1));
  $("fwd").addEventListener("click", () => go(player.step + 1));
  $("end").addEventListener("click", () => end());
  $("compute-stop").addEventListener("click", () => frontier.stop());

  /** The last step the scrubber reaches: the run's, the range's, or the furthest computed. */
  const lastStep = () => Math.min(player.to, sim.known - 1);

  /** End: the furthest step computed; there, compute further while asked. */
  let shownAt = 0;
  function end() {
    if (frontier.job?.kind === "more") return frontier.more();
    const last = lastStep();
    if (player.step < last || sim.done || last >= player.to) {
      frontier.hold();
      return go(last);
    }
    frontier.hold();
    player.pause();
    following = true;
    frontier.more().then(() => {
      if (!following) return;
      following = false;
      player.go(lastStep());
    });
  }
  const toggle = () => {
    interrupt();
    player.toggle();
  };
  play.addEventListener("click", toggle);
  scrub.addEventListener("input", () => go(Number(scrub.value)));

  function setSpeed() {
    player.speed = 2 ** Number(speed.value);
    const s = player.speed;
    speedOut.textContent = s >= 1 ? `×${s % 1 ? s.toFixed(1) : s}` : `×1/${Math.round(1 / s)}`;
  }
  // The speed is kept where the theme is (core/theme.js): in this browser's storage for the
  // page, not in links (a presentation choice, not the run's). An embed neither reads nor
  // writes it: a docs page's figures play at the speed their host gave them.
  const embed = doc.documentElement.classList.contains("embed");
  const was = embed ? null : saved(SPEED_KEY);
  if (was && Math.abs(was) <= 7 && !(was % 0.5)) speed.value = was;
  speed.addEventListener("input", () => {
    setSpeed();
    if (!embed) keep(SPEED_KEY, speed.value);
  });
  setSpeed();

  $("help-open").addEventListener("click", () => help.showModal());

  // Holding End computes while it is held; letting go ends it there.
  let held = false;
  doc.addEventListener("keyup", (e) => {
    if (e.key !== "End" || !held) return;
    held = false;
    if (frontier.job?.kind === "more") frontier.stop();
  });

  doc.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || doc.querySelector("dialog[open]")) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    // Space and Enter belong to the control that has focus (a button, a link, a
    // summary, a row of the sequence diagram): only elsewhere is Space play/pause.
    if ((e.key === " " || e.key === "Enter") && e.target.closest?.(CONTROL)) return;
    const actions = {
      " ": toggle,
      ArrowLeft: () => go(player.step - 1),
      ArrowRight: () => go(player.step + 1),
      Home: () => go(0),
      End: () => {
        if (e.repeat) held = true;
        end();
      },
      "?": () => help.showModal(),
      Escape: () => frontier.stop(),
    };
    const action = actions[e.key];
    if (action && !(e.key === "Escape" && !frontier.job)) {
      e.preventDefault();
      action();
    } else if (!action && jumps?.key(e)) {
      e.preventDefault();
    }
  });

  let jumps = null;
  return {
    /** The key moments' jumps (panels/marks.js) take their keys here. */
    set jumps(m) {
      jumps = m;
    },
    /** Reflects the shown step and how far the run is known (grows as it is computed). */
    update(step = player.step) {
      // A range-locked embed scrubs within its range only.
      const last = lastStep();
      const open = !sim.done && last !== player.to;
      scrub.min = player.from;
      scrub.max = Math.max(player.from, last);
      scrub.value = step;
      // A total not known yet says so: the run goes on past the steps computed so far.
      const text = open ? `${fmt(step)} / ${fmt(last)}+ so far` : `${fmt(step)} / ${fmt(last)}`;
      if (scrubOut.textContent !== text) scrubOut.textContent = text;
      scrubOut.title = open ? `${fmt(last + 1)}+ steps computed so far; the run goes on. End at the last one computes further.` : `${fmt(last + 1)} steps`;
    },
    /** Shows the progress of an on-demand job (null: none); while End computes, the stage follows. */
    computing(job) {
      computing.hidden = !job;
      if (!job) return;
      const what = job.kind === "reach" ? `${job.label}: ` : "Computing further: ";
      if (computingWhat.textContent !== what) computingWhat.textContent = what;
      const now = performance.now();
      if (following && now - shownAt >= FOLLOW_MS && lastStep() > player.step) {
        shownAt = now;
        player.go(lastStep());
      }
      const count = `${fmt(sim.known)} steps so far${job.kind === "reach" && Number.isFinite(job.target) ? ` (${Math.floor((100 * sim.known) / (job.target + 1))}%)` : ""}`;
      if (computingCount.textContent !== count) computingCount.textContent = count;
    },
    playing(on) {
      play.textContent = on ? "Pause" : "Play";
      play.setAttribute("aria-pressed", on);
    },
  };
}
