// "What your broker log would say": the lines Kafka's brokers and controller
// would write for each step, in the format of the preset's version (the core
// writes them: src/kafka_log.rs, `kafka_log` in each record). Up to the step
// shown, newest at the bottom; a click shows that step. Loaded when the panel is
// first opened (panels/page.js), which says the preset's note itself.

/** Lines kept in view, and steps read back after a jump (lighter records, Sim.scan). */
const KEEP = 80;
const BACK = 400;

export function createKafkaLog(list, sim, jump) {
  let last = -1;
  let filling = 0;

  list.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-step]");
    if (b) jump(Number(b.dataset.step));
  });

  const entries = (rec) => (rec.kafka_log ?? []).map((line) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.step = rec.step;
    const [who, ...rest] = line.split(" | ");
    const t = document.createElement("span");
    t.className = "t";
    t.textContent = `#${rec.step} · ${rec.time_ms} ms · ${who}`;
    const code = document.createElement("code");
    code.textContent = rest.join(" | ");
    b.append(t, " ", code);
    li.append(b);
    return li;
  });

  function trim() {
    while (list.childElementCount > KEEP) list.firstElementChild.remove();
  }

  function mark(step) {
    for (const b of list.querySelectorAll("[aria-current]")) b.removeAttribute("aria-current");
    for (const b of list.querySelectorAll(`button[data-step="${step}"]`)) b.setAttribute("aria-current", "step");
  }

  function reset() {
    clearTimeout(filling);
    last = -1;
    list.replaceChildren();
  }

  /** Shows step `rec`'s lines; `now`: the steps before it at once (the panel just
   *  opened), not after the scrubbing stops. */
  function show(rec, now = false) {
    const n = rec.step;
    if (n === last + 1) {
      list.append(...entries(rec));
    } else if (n <= last) {
      for (const b of [...list.querySelectorAll("button[data-step]")]) if (Number(b.dataset.step) > n) b.parentElement.remove();
    } else {
      // A jump: this step's lines now, the ones before once the scrubbing stops.
      list.replaceChildren(...entries(rec));
      clearTimeout(filling);
      const fill = () => {
        if (last !== n || n === 0) return;
        const before = [];
        sim.scan(Math.max(0, n - BACK), n - 1, (r) => before.push(...entries(r)));
        list.prepend(...before);
        trim();
      };
      if (now) {
        last = n;
        fill();
      } else filling = setTimeout(fill, 150);
    }
    last = n;
    trim();
    mark(n);
  }

  return { show, reset };
}
