// Small SVG helpers: create nodes, set attributes only when they change, and
// keep one node per key so a frame updates the scene instead of rebuilding it.

const NS = "http://www.w3.org/2000/svg";

export function el(tag, attrs, parent) {
  const node = document.createElementNS(NS, tag);
  if (attrs) set(node, attrs);
  if (parent) parent.appendChild(node);
  return node;
}

/** Sets attributes, skipping unchanged ones (a write restyles even when
 *  equal). The last values live on the node: cheaper than getAttribute. */
export function set(node, attrs) {
  const last = (node.attrs ??= {});
  for (const name in attrs) {
    const value = attrs[name];
    if (last[name] === value) continue;
    last[name] = value;
    if (value === null || value === undefined || value === false) node.removeAttribute(name);
    else node.setAttribute(name, value);
  }
  return node;
}

export function text(node, value) {
  const s = String(value);
  if (node.txt !== s) node.textContent = node.txt = s;
  return node;
}

/** One node per key under a parent; a sync() pass removes the keys it did not
 *  see (calling the node's drop() when it owns nodes elsewhere). */
export class Keyed {
  constructor(parent, make) {
    this.parent = parent;
    this.make = make;
    this.nodes = new Map();
  }

  sync(items, keyOf, update) {
    const seen = new Set();
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      let node = this.nodes.get(key);
      if (!node) {
        node = this.make(item, key);
        this.parent.appendChild(node.g);
        this.nodes.set(key, node);
      }
      update(node, item);
    }
    for (const [key, node] of this.nodes) {
      if (!seen.has(key)) {
        if (node.drop) node.drop();
        else node.g.remove();
        this.nodes.delete(key);
      }
    }
  }

  clear() {
    for (const node of this.nodes.values()) {
      if (node.drop) node.drop();
      else node.g.remove();
    }
    this.nodes.clear();
  }
}
