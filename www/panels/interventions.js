// Interventions at the shown step: produce, crash or restart a broker, cut
// or heal a link (or, between a KRaft broker and the controller, one of its
// connections), add a consumer on a follower. Each forks the future.

import { h } from "../core/dom.js";
import { whenReady } from "../core/ondemand.js";

function options(select, values, label) {
  // Labels count too: a connection's label says whether it is cut.
  const want = values.map((v) => `${v}=${label(v)}`).join();
  if (select.dataset.values !== want) {
    const keep = select.value;
    select.replaceChildren(...values.map((v) => h("option", { value: v }, label(v))));
    select.dataset.values = want;
    if (values.map(String).includes(keep)) select.value = keep;
  }
}

/** A link end as the scenario names it: a broker number, "controller", "zookeeper" or a client id. */
function end(value) {
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** A KRaft broker's connections to the controller, as a scenario's `channel` names them. */
const CHANNELS = ["", "alter_partition", "heartbeat", "metadata"];
const CHANNEL_LABEL = { "": "every connection", alter_partition: "AlterPartition only", heartbeat: "heartbeats only", metadata: "metadata fetch only" };

function endLabel(v) {
  return typeof v === "number" ? `broker ${v}` : v === "controller" ? "the controller" : v === "zookeeper" ? "ZooKeeper" : v;
}

export function createInterventions(form, act, ready = async () => true) {
  const $ = (id) => form.querySelector(`#${id}`);
  let rec = null;

  const events = {
    produce: () => {
      // What is produced is what the box shows: a count outside 1–100 is brought into it.
      const records = Math.max(1, Math.min(100, Math.round(Number($("iv-records").value)) || 1));
      $("iv-records").value = records;
      return { produce: { producer: $("iv-producer").value, records } };
    },
    crash: () => ({ crash: { broker: Number($("iv-broker").value) } }),
    restart: () => ({ restart: { broker: Number($("iv-broker").value) } }),
    partition: () => ({ partition: link() }),
    heal: () => ({ heal: link() }),
    add_consumer: () => {
      let n = rec.consumers.length + 1;
      while (rec.consumers.some((c) => c.id === `c${n}`)) n++;
      return { add_consumer: { id: `c${n}`, fetch_from: Number($("iv-follower").value) } };
    },
  };

  /** The link the ends name, and the one connection the channel picker names, if any. */
  function link() {
    const between = [end($("iv-a").value), end($("iv-b").value)];
    const channel = $("iv-channel").hidden ? "" : $("iv-channel").value;
    return channel ? { between, channel } : { between };
  }

  /** The button that turns into its partner once used: focus moves there, not to the page. */
  const PARTNER = { crash: "restart", restart: "crash", partition: "heal", heal: "partition" };
  form.addEventListener("click", (e) => {
    const kind = e.target.closest("button[data-iv]")?.dataset.iv;
    if (!kind || !rec) return;
    // The action may wait for the full core (an early press): focus is handed on once it
    // is done (core/ondemand.js whenReady).
    const event = events[kind]();
    const button = e.target.closest("button[data-iv]");
    whenReady(ready, () => act(event), () => partnerOf(kind), { control: button, say: (on) => waitFor(on, event) });
  });

  /** Presses waiting for the full core (pressed before it has come), and what they do. */
  const waiting = [];
  const wait = form.querySelector(".iv-wait");
  function waitFor(on, event) {
    if (on) waiting.push(event);
    else waiting.splice(waiting.indexOf(event), 1);
    if (!wait) return;
    wait.textContent = waiting.length
      ? `${waiting.map(said).join("; ")}: waiting for the simulation core to finish loading. ${waiting.length > 1 ? "They are" : "It is"} done, at the step shown, as soon as it has come.`
      : "";
  }
  /** An intervention in words: "Produce 3 records (p1)", "Crash broker 0", "Cut link 0 ⇄ controller". */
  function said(event) {
    const [kind, v] = Object.entries(event)[0];
    const what = form.querySelector(`[data-iv=${kind}]`).textContent;
    return kind === "produce" ? `${what} ${v.records} record${v.records > 1 ? "s" : ""} (${v.producer})` : `${what} ${v.broker !== undefined ? `broker ${v.broker}` : v.between?.join(" ⇄ ") ?? `on broker ${v.fetch_from}`}`;
  }

  form.addEventListener("submit", (e) => e.preventDefault());
  form.addEventListener("change", () => rec && update(rec));

  /** A keyboard user who crashed a broker can restart it next without hunting for focus. */
  function partnerOf(used) {
    const button = form.querySelector(`[data-iv=${used}]`);
    const partner = PARTNER[used] && form.querySelector(`[data-iv=${PARTNER[used]}]`);
    return button?.disabled && partner && !partner.disabled ? partner : null;
  }

  function update(next) {
    rec = next;
    const brokers = rec.replicas.map((r) => r.broker);
    options($("iv-producer"), rec.producers.map((p) => p.id), (id) => id);
    // A scenario without producers has no one to produce (Settings adds one).
    const producers = rec.producers.length > 0;
    for (const el of [$("iv-producer"), $("iv-records"), form.querySelector("[data-iv=produce]")]) el.disabled = !producers;
    form.querySelector("[data-iv=produce]").title = producers ? "" : "This scenario has no producer: add one in Settings";
    options($("iv-broker"), brokers, (b) => `broker ${b}`);
    // "cut broker 0 from the controller", "cut p1 from broker 0": every node is an end.
    const clients = [...rec.producers.map((p) => p.id), ...rec.consumers.map((c) => c.id)];
    // A ZooKeeper-era run has ZooKeeper on the network too (its sessions are in the record).
    const zookeeper = rec.controller?.zookeeper ? ["zookeeper"] : [];
    options($("iv-a"), [...brokers, ...clients, ...zookeeper], endLabel);
    // Clients and the controller talk only to brokers, ZooKeeper to brokers and the controller.
    const clientA = clients.includes($("iv-a").value);
    const zookeeperA = $("iv-a").value === "zookeeper";
    options($("iv-b"), clientA ? brokers : zookeeperA ? [...brokers, "controller"] : [...brokers, "controller", ...zookeeper, ...clients], endLabel);
    if ($("iv-a").value === $("iv-b").value && brokers.length > 1) $("iv-b").value = brokers.find((b) => String(b) !== $("iv-a").value);
    // Followers first: a consumer on a follower is the interesting case.
    const followers = [...brokers].sort((a, b) => (a === rec.partition.leader) - (b === rec.partition.leader));
    options($("iv-follower"), followers, (b) => `on broker ${b}${b === rec.partition.leader ? " (leader)" : " (follower)"}`);
    const broker = rec.replicas.find((r) => String(r.broker) === $("iv-broker").value);
    form.querySelector("[data-iv=crash]").disabled = !broker?.alive;
    form.querySelector("[data-iv=restart]").disabled = !!broker?.alive;
    // Heal only what is cut, cut only what is not (either would be a step that changes nothing).
    const a = $("iv-a").value;
    const b = $("iv-b").value;
    // Between a KRaft broker and the controller one connection may be cut or healed alone
    // (AlterPartition, heartbeats, the metadata log's fetch); the picker starts on the one
    // that is cut, so a cut loaded from a link or a scenario can be healed.
    const channels = (rec.partition.cut_channels ?? []).filter((c) => [String(c.from), String(c.to)].sort().join() === [a, b].sort().join());
    const picker = $("iv-channel");
    const kraft = !rec.controller?.zookeeper;
    picker.hidden = !(kraft && brokers.map(String).includes(a) !== brokers.map(String).includes(b) && [a, b].includes("controller"));
    options(picker, CHANNELS, (c) => CHANNEL_LABEL[c] + (channels.some((x) => x.channel === c) ? " (cut)" : ""));
    const pairKey = [a, b].sort().join();
    if (picker.dataset.pair !== pairKey) {
      picker.dataset.pair = pairKey;
      picker.value = channels[0]?.channel ?? "";
    }
    const channel = picker.hidden ? "" : picker.value;
    const cut = channel
      ? (x, y) => channels.some((c) => c.channel === channel && String(c.from) === x && String(c.to) === y)
      : (x, y) => (rec.partition.cut_links ?? []).some(([f, t]) => String(f) === x && String(t) === y);
    const same = a === b;
    form.querySelector("[data-iv=heal]").disabled = same || !(cut(a, b) || cut(b, a));
    form.querySelector("[data-iv=partition]").disabled = same || (cut(a, b) && cut(b, a));
  }

  return update;
}
