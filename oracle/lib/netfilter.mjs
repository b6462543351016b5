// Network cuts on loopback with nftables, told apart by the process that opened each
// connection.
//
// Every node of a run (controller, brokers, each client) runs under its own numeric uid
// (setpriv), and the whole cluster stays on 127.0.0.1. When a connection opens, its first
// packet is tagged in conntrack with the opener's uid (ct mark). A cut "from X to Y" then
// drops, in the output hook, every packet X sends to Y:
//   - X's requests to one of Y's listeners:  original direction, ct mark X, to Y's port
//   - X's answers on a connection Y opened:  reply direction, ct mark Y, to X's port
// The match is on the connection, not on the sending socket's owner: a socket the process
// has already closed still retransmits its last request, and nftables cannot see the owner
// of such an orphan (meta skuid needs the socket's file) — a heartbeat slipped through
// that way before. Packets are dropped silently, so TCP retransmits and requests time out,
// as across a real partition; healing removes the set elements and retransmission resumes.
// The table is private to the run (named after its port base) and matches only the run's
// uids: nothing else on the machine is touched.
//
// Why this and not network namespaces with veth pairs: the brokers, the controller and
// the clients keep the addresses and ports an operator would see (127.0.0.1), there is
// no routing or bridge to set up or leak, a cut takes a few set elements (one nft call),
// and a one-way cut is exact (each direction is its own element).

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
  set cut_request { type mark . inet_service; }
  set cut_answer { type mark . inet_service; }
  chain tag {
    type filter hook output priority -10; policy accept;
${tags}
  }
  chain drops {
    type filter hook output priority 0; policy accept;
    ct direction original ct mark . tcp dport @cut_request counter drop
    ct direction reply ct mark . tcp sport @cut_answer counter drop
  }
}
`;
    this.destroy();
    runSync("nft", ["-f", "-"], { input: ruleset });
    // A cut that silently does nothing would make every partition scenario lie.
    const listed = runSync("nft", ["list", "table", "inet", this.table]);
    if (!listed.includes("cut_answer")) throw new Error(`netfilter: table ${this.table} was not created`);
  }

  /** The set elements of a cut from -> to: { request: [...], answer: [...] }. */
  elements(from, to) {
    const a = this.nodes.get(from);
    const b = this.nodes.get(to);
    if (!a || !b) throw new Error(`netfilter: unknown endpoint ${!a ? from : to}`);
    return {
      request: b.ports.map((p) => `${a.uid} . ${p}`), // connections a opened to b's listeners
      answer: a.ports.map((p) => `${b.uid} . ${p}`), // connections b opened to a's listeners
    };
  }

  apply(op, from, to) {
    const { request, answer } = this.elements(from, to);
    const cmds = [];
    if (request.length) cmds.push(`${op} element inet ${this.table} cut_request { ${request.join(", ")} }`);
    if (answer.length) cmds.push(`${op} element inet ${this.table} cut_answer { ${answer.join(", ")} }`);
    if (!cmds.length) return;
    runSync("nft", ["-f", "-"], { input: cmds.join("\n") + "\n" });
    // Check the first element of one set took the change (nft prints marks in hex).
    const [set, element] = request.length ? ["cut_request", request[0]] : ["cut_answer", answer[0]];
    const [uid, port] = element.split(" . ");
    const listed = runSync("nft", ["list", "set", "inet", this.table, set]);
    const present = listed.includes(`0x${Number(uid).toString(16).padStart(8, "0")} . ${port}`);
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
