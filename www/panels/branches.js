// A timeline that branches: every intervention starts a branch instead of
// replacing the future. A compact tree under the scrubber lists the run as
// loaded and each branch (its intervention and step); any one can be returned
// to (its share link, at the step it was left at), so the address, Share and
// Back/Forward carry the branch shown. Nothing here computes: a branch is a
// share link, and the page replays it as it replays any link.

import { h } from "../core/dom.js";

/** "crash broker 1", "produce 3 to p1", "cut 0 ⇄ 2" */
export function describe(event) {
  const [kind, v = {}] = Object.entries(event).find(([k]) => k !== "at_step") ?? ["change"];
  const between = (x) => (x.between ?? []).join(" ⇄ ");
  switch (kind) {
    case "crash":
    case "restart":
      return `${kind} broker ${v.broker}`;
    case "produce":
      return `${v.records ?? 1} record${v.records === 1 ? "" : "s"} from ${v.producer}`;
    case "partition":
      return `cut ${between(v)}`;
    case "heal":
      return `heal ${between(v)}`;
    case "add_consumer":
      return `consumer ${v.id} on broker ${v.fetch_from}`;
    default:
      return kind.replace(/_/g, " ");
  }
}

/** `open(link)` shows a branch (its share link); `compare(a, b)` the two side by side. */
export function createBranches(box, { open, compare }) {
  const nodes = new Map();
  let root = null;
  let current = null;
  let picked = null;

  const tree = h("ol", { class: "branch-tree" });
  const note = h("span", { class: "branch-note muted" });
  const cmp = h("button", { type: "button", class: "link", hidden: "", onclick: () => compareWith() }, "Compare");
  box.replaceChildren(h("span", { class: "branch-h" }, "Branches"), tree, cmp, note);
  box.hidden = true;

  function draw() {
    // A keyboard user keeps focus on the branch they chose through the redraw.
    const had = box.contains(document.activeElement) ? document.activeElement.closest("li")?.dataset.branch : null;
    box.hidden = nodes.size < 2;
    const item = (n) => h("li", { "data-branch": n.id },
      h("button", {
        type: "button",
        class: `branch${n === current ? " current" : ""}${n === picked ? " picked" : ""}`,
        "aria-current": n === current ? "true" : null,
        title: n.parent ? `${n.label}, at step ${n.at}: show this branch` : "The run as loaded",
        onclick: (e) => (e.shiftKey ? pick(n) : go(n)),
      }, n.parent ? `${n.label} @${n.at}` : "as loaded"),
      n.children.length ? h("ol", {}, n.children.map(item)) : null);
    tree.replaceChildren(root ? item(root) : "");
    cmp.hidden = !(picked && picked !== current);
    cmp.textContent = picked && picked !== current ? `Compare with “${picked.parent ? picked.label : "as loaded"}”` : "Compare";
    note.textContent = nodes.size > 1 && !picked ? "Shift+click (or Shift+Enter) a branch to compare it with this one." : "";
    if (had) (tree.querySelector(`li[data-branch="${had}"] > button`) ?? cmp).focus({ preventScroll: true });
  }

  function go(n) {
    if (n === current) return;
    open(n.link);
  }

  function pick(n) {
    picked = picked === n ? null : n;
    draw();
  }

  function compareWith() {
    if (picked && current) compare(current, picked);
  }

  let ids = 0;
  const node = (key, link, parent, label, at) => {
    const n = { id: ++ids, key, link, parent, label, at, children: [] };
    nodes.set(key, n);
    parent?.children.push(n);
    return n;
  };

  return {
    /** A new run (another scenario, Settings): one root, no branches. */
    reset(key, link) {
      nodes.clear();
      picked = null;
      root = current = node(key, link, null, "", 0);
      draw();
    },
    /** The current branch is left at `link`; `event` at step `at` starts a child. */
    fork(leftAt, key, link, event, at) {
      if (current) current.link = leftAt;
      const known = nodes.get(key);
      // An intervention at or before a branch's own is not made on that branch (its
      // intervention is gone from the new run): the new branch hangs from the nearest one
      // whose intervention it keeps. `at` is the step the intervention is (the heading's).
      let parent = current ?? root;
      while (parent.parent && parent.at >= at) parent = parent.parent;
      current = known ?? node(key, link, parent, describe(event), at);
      draw();
    },
    /** The page shows the run `key` (a link, Back/Forward): mark its branch, if it is one. */
    shown(key, link) {
      const n = nodes.get(key);
      if (!n) return false;
      if (current && current !== n) current.link = current.link ?? link;
      current = n;
      n.link = link;
      draw();
      return true;
    },
    /** Before leaving the shown branch, remember where it was. */
    leave(link) {
      if (current) current.link = link;
    },
    get size() {
      return nodes.size;
    },
  };
}
