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
// One connection of a broker to the controller (`channel`). A KRaft broker talks to the
// controller over separate TCP connections from the same uid to the same port: the
// heartbeat channel (BrokerLifecycleManager: BrokerRegistration 62, BrokerHeartbeat 63),
// the AlterPartition channel (AlterPartitionManager: AlterPartition 56), each a
// NodeToControllerChannelManagerImpl with its own NetworkClient, and the raft client's
// metadata Fetch (1). Their source ports are ephemeral and a reconnect changes them, so a
// connection is told apart by what it carries instead: a Kafka request starts with its size
// (4 bytes) and its API key (2 bytes), so the first packet of a request is matched on the
// key at payload offset 4 (`@ih,32,16`) and the connection gets a channel bit in its ct
// mark, above the uid (rules armed only in runs with a channel cut). The ApiVersions
// exchange that opens every connection carries no channel's key and passes. A channel cut
// is then an element keyed on the flagged mark; a whole-link cut lists the flagged marks
// too. The request that flags a cut connection is itself dropped (the rule order), so it
// is held by TCP like any request sent into a cut.
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

/** The channel bits of a connection's ct mark (above every uid, which is a port number). */
export const CHANNEL_BITS = { alter_partition: 0x10000000, heartbeat: 0x20000000, metadata: 0x40000000 };
/** The API keys that mark a connection as a channel's. */
const CHANNEL_KEYS = { alter_partition: [56], heartbeat: [62, 63], metadata: [1] };

export class Netfilter {
  /** nodes: Map name -> { uid, ports: number[] }; channels: null, or { controllerPort, brokerUids } to tell a broker's connections to the controller apart. */
  constructor(table, nodes, channels = null) {
    this.table = table;
    this.nodes = nodes;
    this.channels = channels;
    this.active = new Set();
  }

  /** The rules that give a broker's connection to the controller its channel bit. */
  channelRules() {
    if (!this.channels) return "";
    const { controllerPort, brokerUids } = this.channels;
    const hex = (n) => `0x${n.toString(16).padStart(8, "0")}`;
    // Only a bare uid is flagged: a connection gets one channel, at its first channel request.
    const rules = [];
    for (const [channel, keys] of Object.entries(CHANNEL_KEYS))
      for (const key of keys)
        rules.push(
          `    ct direction original tcp dport ${controllerPort} ct mark { ${brokerUids.join(", ")} } @ih,32,16 ${key} ct mark set ct mark | ${hex(CHANNEL_BITS[channel])}`,
        );
    return rules.join("\n") + "\n";
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
${this.channelRules()}    ct direction original ct mark . tcp dport @cut_request counter drop
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

  /**
   * The set elements of a cut from -> to: { request: [...], answer: [...] }. With a channel,
   * only the connections flagged as that channel's; without, every connection (flagged or not).
   */
  elements(from, to, channel = null) {
    const a = this.nodes.get(from);
    const b = this.nodes.get(to);
    if (!a || !b) throw new Error(`netfilter: unknown endpoint ${!a ? from : to}`);
    if (channel && !this.channels) throw new Error(`netfilter: a ${channel} cut needs the channel rules (create with channels)`);
    const marks = (uid) =>
      channel ? [uid | CHANNEL_BITS[channel]] : this.channels ? [uid, ...Object.values(CHANNEL_BITS).map((bit) => uid | bit)] : [uid];
    return {
      request: b.ports.flatMap((p) => marks(a.uid).map((m) => `${m} . ${p}`)), // connections a opened to b's listeners
      answer: a.ports.flatMap((p) => marks(b.uid).map((m) => `${m} . ${p}`)), // connections b opened to a's listeners
    };
  }

  apply(op, from, to, channel = null) {
    const { request, answer } = this.elements(from, to, channel);
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

  /** Cut the direction from -> to (idempotent); with a channel, that connection of a broker to the controller only. */
  cut(from, to, channel = null) {
    const key = `${from}>${to}${channel ? `:${channel}` : ""}`;
    if (this.active.has(key)) return;
    this.apply("add", from, to, channel);
    this.active.add(key);
  }

  heal(from, to, channel = null) {
    const key = `${from}>${to}${channel ? `:${channel}` : ""}`;
    if (!this.active.has(key)) return;
    this.apply("delete", from, to, channel);
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
