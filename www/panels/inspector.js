// The inspector: every field of the broker or message picked on the stage,
// or of the shown step's event when nothing is picked.

import { h, fields, show } from "../core/dom.js";

export function createInspector(box, unpick, act) {
  function broker(rec, id) {
    const r = rec.replicas.find((x) => x.broker === id);
    if (!r) return [h("p", {}, `No broker ${id} in this run.`)];
    const out = [
      h("h3", {}, `Broker ${id}`),
      h("div", { class: "row" },
        h("button", { type: "button", onclick: () => act(r.alive ? { crash: { broker: id } } : { restart: { broker: id } }) }, r.alive ? "Crash it now" : "Restart it now")),
      fields(r, ["log", "followers", "parked"]),
    ];
    if (r.followers?.length) {
      out.push(h("h4", {}, "Leader's view of its followers"),
        h("table", { class: "fields" },
          h("tr", {}, h("th", {}, "broker"), h("th", {}, "fetch offset"), h("th", {}, "caught up at"), h("th", {}, "in ISR")),
          r.followers.map((f) => h("tr", {}, h("td", {}, f.broker), h("td", {}, show(f.fetch_offset)), h("td", {}, `${f.last_caught_up_ms} ms`), h("td", {}, show(f.in_isr))))));
    }
    if (r.parked?.length) {
      out.push(h("h4", {}, "Waiting here"), h("ul", {}, r.parked.map((p) => h("li", {}, `${p.kind} from ${p.from} at offset ${p.offset}, expires at ${p.expire_ms} ms`))));
    }
    out.push(h("h4", {}, "Log, newest first"),
      h("ol", { class: "loglist" }, r.log.slice(-40).reverse().map((e) => h("li", {}, `${e.offset} · epoch ${e.epoch} · ${e.id}${e.offset < r.hw ? "" : " (above HW)"}`))));
    return out;
  }

  function message(rec, id) {
    const m = rec.in_flight.find((x) => x.id === id);
    if (!m) return [h("p", {}, `Message #${id} is no longer in flight at step ${rec.step}: it arrived or was lost.`)];
    return [h("h3", {}, `${m.type.replace(/_/g, " ")} #${id}`), fields(m)];
  }

  function consumer(rec, id) {
    const c = rec.consumers.find((x) => x.id === id);
    if (!c) return [h("p", {}, `No consumer ${id} at step ${rec.step}.`)];
    return [h("h3", {}, `Consumer ${id}`), fields(c, ["read"]), h("h4", {}, `Read (${c.read.length})`), h("p", { class: "loglist" }, c.read.join(" ") || "nothing yet")];
  }

  function event(rec) {
    if (!rec.event) return [h("h3", {}, `Step ${rec.step}`), h("p", {}, "The scenario as configured, before any event."), fields(rec.partition)];
    return [h("h3", {}, `Step ${rec.step} · ${rec.event.type.replace(/_/g, " ")} at ${rec.time_ms} ms`), fields(rec.event), h("h4", {}, "Partition"), fields(rec.partition)];
  }

  return function render(rec, sel) {
    unpick.hidden = !sel;
    const view = { broker, msg: message, consumer }[sel?.kind];
    box.replaceChildren(...(view ? view(rec, sel.id) : event(rec)));
  };
}
