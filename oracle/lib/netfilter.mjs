// Network cuts on loopback with nftables, told apart by the sending process's uid.
//
// Every node of a run (controller, brokers, each client) runs under its own numeric
// uid (setpriv), and the whole cluster stays on 127.0.0.1. A new connection is tagged
// with its originator's uid (ct mark). A cut "from A to B" then drops, in the output
// hook, every packet that A's sockets send to B:
//   - A as the client of one of B's listeners:   meta skuid . tcp dport   in @cut_port
//   - A answering on a connection B opened:      meta skuid . ct mark     in @cut_reply
// Packets are dropped silently, so TCP retransmits and requests time out, as across a
// real partition; healing removes the set elements and retransmission resumes.
// The table is private to the run (named after its port base) and matches only the
// run's uids: nothing else on the machine is touched.
//
// Why this and not network namespaces with veth pairs: the brokers, the controller and
// the clients keep the addresses and ports an operator would see (127.0.0.1), there is
// no routing or bridge to set up or leak, a cut takes one set element (one nft call,
// ~10 ms), and a one-way cut is exact (each direction is its own element).

import { runSync } from "./procs.mjs";

export function nftAvailable() {
  try {
    runSync("nft", ["--version"]);
    return true;
  } catch {
    return false;
  }
}

export class Netfilter {
  /** nodes: Map name -> { uid, ports: number[] } */
  constructor(table, nodes) {
    this.table = table;
    this.nodes = nodes;
    this.active = new Set();
  }

  create() {
    const tags = [...this.nodes.values()]
      .map((n) => `    ct state new meta skuid ${n.uid} ct mark set ${n.uid}`)
      .join("\n");
    const ruleset = `table inet ${this.table} {
  set cut_port { type uid . inet_service; }
  set cut_reply { type uid . mark; }
  chain tag {
    type filter hook output priority -10; policy accept;
${tags}
  }
  chain drops {
    type filter hook output priority 0; policy accept;
    meta skuid . tcp dport @cut_port drop
    ct direction reply meta skuid . ct mark @cut_reply drop
  }
}
`;
    this.destroy();
    runSync("nft", ["-f", "-"], { input: ruleset });
    // A cut that silently does nothing would make every partition scenario lie.
    const listed = runSync("nft", ["list", "table", "inet", this.table]);
    if (!listed.includes("cut_reply")) throw new Error(`netfilter: table ${this.table} was not created`);
  }

  elements(from, to) {
    const a = this.nodes.get(from);
    const b = this.nodes.get(to);
    if (!a || !b) throw new Error(`netfilter: unknown endpoint ${!a ? from : to}`);
    const port = b.ports.map((p) => `${a.uid} . ${p}`);
    return { port, reply: [`${a.uid} . ${b.uid}`] };
  }

  apply(op, from, to) {
    const { port, reply } = this.elements(from, to);
    const cmds = [];
    if (port.length) cmds.push(`${op} element inet ${this.table} cut_port { ${port.join(", ")} }`);
    cmds.push(`${op} element inet ${this.table} cut_reply { ${reply.join(", ")} }`);
    runSync("nft", ["-f", "-"], { input: cmds.join("\n") + "\n" });
    const listed = runSync("nft", ["list", "set", "inet", this.table, "cut_reply"]);
    const { uid: fromUid } = this.nodes.get(from);
    const { uid: toUid } = this.nodes.get(to);
    const present = listed.includes(`${fromUid} . 0x${toUid.toString(16).padStart(8, "0")}`);
    if ((op === "add") !== present) throw new Error(`netfilter: ${op} ${from}→${to} did not take effect`);
  }

  /** Cut the direction from -> to (idempotent). */
  cut(from, to) {
    const key = `${from}>${to}`;
    if (this.active.has(key)) return;
    this.apply("add", from, to);
    this.active.add(key);
  }

  heal(from, to) {
    const key = `${from}>${to}`;
    if (!this.active.has(key)) return;
    this.apply("delete", from, to);
    this.active.delete(key);
  }

  destroy() {
    try {
      runSync("nft", ["delete", "table", "inet", this.table]);
    } catch {
      // not there
    }
  }
}
