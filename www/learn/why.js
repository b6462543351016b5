// "Why did the HW move?": the cause chain of one HW change, read from the
// step records. For a leader's HW: the step that moved it (usually a Fetch,
// whose fetch offset told the leader a follower's LEO) and where that Fetch
// came from; then, for each follower, the first Fetch answer carrying the
// new HW, what sent it (answered at once, released by new records, or expired
// after replica.fetch.wait.max.ms) and when it arrived. A follower's HW change
// is explained through the leader's change it carries.

import { h } from "../core/dom.js";
import { eventLabel, sentBy as sender, who } from "./words.js";

/** Steps searched after the leader's change for the answers that carry it. */
const AHEAD = 1500;

/** The leader's HW change that a follower's change at `step` reflects: the
 *  last one at or before the step that sent the answer. */
function leaderChangeFor(trace, step, hw) {
  const m = trace.receivedAt(step);
  const until = m && m.type === "fetch_response" ? m.sentStep : step;
  for (let n = until; n > trace.first; n--) {
    const a = trace.row(n - 1);
    const b = trace.row(n);
    if (b.leader !== null && b.hw[b.leader] >= hw && a.hw[b.leader] < hw) return { step: n, broker: b.leader, from: a.hw[b.leader], to: b.hw[b.leader], t: b.t, leader: true };
  }
  return null;
}

/** The chain for a HW change {step, broker, leader}; see the file comment. */
export function causeChain(trace, change) {
  let picked = change;
  let lead = change.leader ? change : leaderChangeFor(trace, change.step, change.to);
  const chain = { picked, lead, trigger: null, followers: [] };
  if (!lead) return chain;
  const L = lead.broker;
  const at = trace.record(lead.step);
  const ev = at.event ?? {};
  const view = at.replicas.find((r) => r.broker === L)?.followers ?? [];
  chain.trigger = { step: lead.step, t: lead.t, ev, text: at.text, leo: trace.row(lead.step).leo[L], view, isr: at.partition.isr, maximal: at.partition.maximal_isr };
  const m = trace.receivedAt(lead.step);
  if (m && ev.type === "fetch_request") chain.trigger.fetch = { msg: m, sent: sender(trace, m) };

  // Each follower: the first answer from L carrying HW ≥ the new one.
  const followers = trace.row(lead.step).hw.map((_, b) => b).filter((b) => b !== L);
  const found = new Map();
  for (let n = lead.step; n <= lead.step + AHEAD && found.size < followers.length; n++) {
    trace.upTo(n);
    if (n > trace.last) break;
    const row = trace.row(n);
    if (n > lead.step && row.leader !== L) break;
    const got = trace.receivedAt(n);
    if (got && got.type === "fetch_response" && got.from === L && got.hw >= lead.to && !found.has(got.to)) {
      const before = trace.row(n - 1).hw[got.to];
      found.set(got.to, { step: n, t: row.t, carried: got.hw, from: before, to: row.hw[got.to], leo: row.leo[got.to], sent: sender(trace, got), lag: row.t - lead.t });
    }
  }
  chain.followers = followers.map((b) => ({ broker: b, got: found.get(b) ?? null, role: trace.row(lead.step).role[b] }));
  chain.searchedTo = Math.min(trace.last, lead.step + AHEAD);
  return chain;
}

const stepButton = (go, step, t) => h("button", { type: "button", class: "link at", "data-step": step, onclick: () => go(step) }, `#${step} · ${t} ms`);

/** The chain as a list of steps, each a button that shows that step. */
export function renderChain(chain, go) {
  const { lead, trigger } = chain;
  if (!lead) return [h("p", {}, `No change of the leader's HW explains the one at step ${chain.picked?.step}: it came with a new leader, a truncation or a restart.`)];
  const items = [];
  if (trigger.fetch) {
    const { msg, sent } = trigger.fetch;
    items.push(h("li", {}, stepButton(go, sent.step, sent.t), ` Follower ${msg.from} sends Fetch @${msg.fetch_offset}: ${sent.how}. The fetch offset is its LEO.`));
    items.push(h("li", { class: "key" }, stepButton(go, trigger.step, trigger.t),
      ` It reaches leader ${lead.broker}, which now knows follower ${msg.from} has offsets below ${msg.fetch_offset}. `,
      h("b", { class: "hwtxt" }, `HW ${lead.from} → ${lead.to}.`),
      viewLine(trigger, lead.broker)));
  } else {
    items.push(h("li", { class: "key" }, stepButton(go, trigger.step, trigger.t), ` ${eventLabel(trigger.ev)} at ${who(lead.broker)}: `, h("b", { class: "hwtxt" }, `HW ${lead.from} → ${lead.to}.`), " ", h("q", {}, trigger.text)));
  }
  for (const f of chain.followers) {
    const g = f.got;
    if (!g) {
      items.push(h("li", { class: "none" }, `Follower ${f.broker}${f.role === "offline" ? " (offline)" : ""}: no answer carrying HW ${lead.to} by step ${chain.searchedTo}.`));
      continue;
    }
    const moved = g.from === g.to ? `its HW stays ${g.to}` : `its HW ${g.from} → ${g.to}`;
    const clamp = g.to < g.carried ? ` (capped at its LEO ${g.leo})` : "";
    items.push(h("li", { "data-follower": f.broker, "data-lag": g.lag },
      stepButton(go, g.step, g.t),
      ` Follower ${f.broker} gets an answer sent at ${g.sent.t} ms (#${g.sent.step}: ${g.sent.how}) carrying HW ${g.carried}: `,
      h("b", { class: "hwtxt" }, `${moved}${clamp}`), `, ${g.lag} ms after the leader.`));
  }
  return [h("ol", { class: "chain" }, items)];
}

function viewLine(trigger, L) {
  const parts = [`leader ${L} LEO ${trigger.leo}`];
  for (const f of trigger.view) parts.push(`follower ${f.broker} at ${f.fetch_offset ?? "?"}${f.in_isr ? "" : " (not in ISR)"}`);
  return h("small", { class: "view" }, ` What the leader knows now: ${parts.join(", ")}; ISR {${trigger.isr}}${trigger.maximal && trigger.maximal.length !== trigger.isr.length ? `, the leader counting {${trigger.maximal}} until the change is applied` : ""}.`);
}

/** The view: a list of HW changes to pick from and the chain of the picked one. */
export function createWhy(box, hub) {
  const select = h("select", { "aria-label": "HW change", class: "why-pick" });
  const out = h("div", { class: "why-out", "aria-live": "polite" });
  box.append(h("div", { class: "row" }, h("label", {}, "HW change ", select),
    h("button", { type: "button", onclick: () => latest() }, "Latest before this step")), out);
  let changes = [];
  let key = "";

  function list() {
    const trace = hub.trace();
    const k = `${hub.revision()}:${trace.first}:${trace.last}`;
    if (k === key) return;
    key = k;
    const keep = select.value;
    changes = trace.hwChanges();
    select.replaceChildren(...changes.map((c, i) => h("option", { value: i }, `#${c.step} · ${c.t} ms · ${c.leader ? "leader" : "follower"} ${c.broker}: HW ${c.from} → ${c.to}`)));
    if (!changes.length) select.append(h("option", { value: "" }, "No HW change in these steps"));
    if (keep) select.value = keep;
  }

  function pick(i) {
    const c = changes[i];
    select.value = c ? i : "";
    out.replaceChildren(...(c ? renderChain(causeChain(hub.trace(), c), hub.go) : [h("p", {}, "Nothing to explain yet: play on until an HW moves.")]));
    out.dataset.step = c?.step ?? "";
    out.dataset.broker = c?.broker ?? "";
  }

  /** The latest change at or before the shown step (else the first after it). */
  function latest() {
    hub.coverShown();
    list();
    const now = hub.rec().step;
    let i = -1;
    changes.forEach((c, j) => (c.step <= now ? (i = j) : null));
    pick(i >= 0 ? i : 0);
  }

  select.addEventListener("change", () => pick(Number(select.value)));
  latest();

  return {
    /** Shows the chain of the change at `step` for `broker` (from the chart). */
    explain(step, broker) {
      hub.trace().cover(Math.max(0, step - 100), step + 100);
      list();
      const i = changes.findIndex((c) => c.step === step && c.broker === broker);
      pick(i >= 0 ? i : 0);
    },
    reset: latest,
    step() {},
  };
}
