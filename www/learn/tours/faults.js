// Tour faults: the faults a Kafka engineer tries first, one part per built-in
// (zombie-leader, bounce-inside-session, retry-duplicates,
// retry-through-failover). Beats are pinned on events and on what the records
// list (lost, violations); every number is read from the records.

import { ev, both, list, plural, set } from "./common.js";

// ---- predicates and readings shared by the parts ------------------------------

/** A broker that leads in its own view while the controller has elected another. */
const zombieIn = (rec) => rec.replicas.find((r) => r.alive && r.role === "leader" && r.broker !== rec.partition.leader);
/** The brokers at the ends of a partition/heal event's links (not the controller, not a client). */
const brokersOf = (e) => [...new Set((e.links ?? []).flat().filter((x) => typeof x === "number"))];
/** A new entry in the run's list of lost records at this step. */
const newLoss = (r, p) => (r.lost?.length ?? 0) > (p?.lost?.length ?? 0);
/** A violation of this kind at this step. */
const violation = (kind) => (r) => r.violations.some((v) => v.invariant === kind);
/** How many times record `id` stands in broker b's log (as far as the record shows it). */
const copies = (rec, b, id) => (rec.replicas.find((r) => r.broker === b)?.log ?? []).filter((x) => x.id === id).length;
const producer = (c, id) => c.rec.producers.find((p) => p.id === id);
/** A producer setting as the scenario states it. */
const pset = (c, id, key) => c.sc.producers?.find((p) => p.id === id)?.[key];
/** The broker that crashed last before this step. */
const crashed = (c) => c.lastEvent((e) => e.type === "crash")?.ev.broker;
/** What a producer's pill reads while a batch is retried ("retry N"), as the stage draws it. */
const retryWord = (c, id) => {
  const b = producer(c, id)?.batches?.find((x) => x.attempts > 0);
  return b ? `“retry ${b.attempts}”` : "“retry 1”, “retry 2”, …";
};
const retries = (n) => `${n} ${n === 1 ? "retry" : "retries"}`;
const since = (c, pred) => {
  const row = c.lastEvent(pred);
  return row ? c.t - row.t : null;
};

// ---- part 1: zombie-leader ------------------------------------------------------

export const zombie = [
  {
    id: "cut",
    level: "junior",
    title: "The leader is cut off from the controller",
    at: both(ev("partition"), (r) => (r.event.links ?? []).flat().includes("controller")),
    say: {
      junior: (c) => `At ${c.t} ms the link between broker ${list(brokersOf(c.e).map(String))} and the controller is cut both ways: the red arc with a ✕ on the stage. Leader ${c.L} still reaches its followers and both producers; only the controller no longer hears it.`,
      middle: (c) => `Brokers tell the controller they are alive by heartbeats (broker.heartbeat.interval.ms = ${c.cfg("broker.heartbeat.interval.ms")} ms). From now on broker ${brokersOf(c.e)[0]}'s heartbeats are lost, and the controller will fence it broker.session.timeout.ms (${c.cfg("broker.session.timeout.ms")} ms) after the last one that arrived.`,
    },
  },
  {
    id: "fenced",
    level: "junior",
    title: "Fenced and replaced, without knowing it",
    at: ev("leader_election", { outcome: "fenced" }),
    quiz: {
      kind: "claim",
      claim: "zombie-role",
      ask: (c) => `The controller has fenced broker ${c.e.broker} and elected broker ${c.e.leader} (leader epoch ${c.e.leader_epoch}). Broker ${c.e.broker} is alive but still cut off from the controller. What is broker ${c.e.broker} in its own view?`,
      answer: (c) => ({ key: c.rep(c.e.broker).role === "leader" ? "leader" : "follower", broker: c.e.broker }),
      choices: () => [
        { key: "leader", label: "Still the leader" },
        { key: "follower", label: "A follower of the new leader", why: "Nothing tells it. A broker learns of a new leader only from the controller's metadata, and that link is cut. Kafka has no leader lease: the old leader is not told, and it does not step down by itself." },
      ],
      explain: (c) => `Broker ${c.e.broker}'s role is ${c.rep(c.e.broker).role} at leader epoch ${c.rep(c.e.broker).leader_epoch}, while the partition's leader is ${c.L} at epoch ${c.rec.partition.leader_epoch}. Its header reads “leader? zombie”.`,
    },
    say: {
      junior: (c) => `At ${c.t} ms, ${since(c, (e) => e.type === "partition")} ms after the cut, the controller fences broker ${c.e.broker} and elects broker ${c.e.leader} from the ISR: ISR ${set(c.e.isr_before)} → ${set(c.e.isr)}. Broker ${c.e.broker} still thinks it leads: a zombie (its header on the stage: “leader? zombie”).`,
      senior: (c) => `The controller fences a broker whose session has run out at its periodic stale-broker check (ReplicationControlManager.maybeFenceOneStaleBroker, then handleBrokerFenced: out of every ISR, a new leader where it led). ${(() => {
        const f = c.e.isr.filter((b) => b !== c.e.leader);
        return `${f.length === 1 ? "Follower" : "Followers"} ${list(f.map(String))} ${f.length === 1 ? "learns" : "learn"} of the new leader from the controller and ${f.length === 1 ? "fetches" : "fetch"} from broker ${c.e.leader}.`;
      })()}`,
    },
  },
  {
    id: "acks1",
    level: "junior",
    title: "acks=1 on the zombie: acknowledged, then lost",
    at: both(ev("produce_response"), newLoss),
    quiz: {
      kind: "claim",
      claim: "zombie-acks1",
      ask: (c) => `Producer ${c.e.to} (acks=1) still has broker ${c.e.from} in its metadata and sends it ${list(c.e.records ?? [])}. Broker ${c.e.from} appends it to its log. Does ${c.e.to} get an acknowledgement?`,
      answer: (c) => ({ key: c.e.type === "produce_response" && (c.e.records ?? []).length > 0 ? "acked" : "refused", broker: c.e.from }),
      choices: () => [
        { key: "acked", label: "Yes: the zombie acknowledges it" },
        { key: "refused", label: "No: it is refused, it is not the leader", why: "Broker 0 would refuse it only if it knew it is no longer the leader (NOT_LEADER_OR_FOLLOWER). It does not know: with acks=1 the leader answers as soon as the record is in its own log (ReplicaManager.appendRecords), asking no one." },
      ],
      explain: (c) => {
        const l = c.rec.lost.at(-1);
        return `${c.e.to} is acknowledged at ${c.t} ms. ${l.text}`;
      },
    },
    say: {
      junior: (c) => `The write is acknowledged, yet the partition's leader ${c.L} does not have it: “Lost in this run” lists ${c.rec.lost.at(-1).id} at once, marked as permitted (acks=1 promises only that the leader had it).`,
      middle: (c) => `Every acks=1 write to broker ${c.e.from} from now on is acknowledged by a leader that is no longer one. Broker ${c.L}'s log ends at ${c.lead.leo}; broker ${c.e.from}'s at ${c.rep(c.e.from).leo}.`,
    },
  },
  {
    id: "acksall",
    // A contrast: the error is named, not shown in this run.
    claims: () => ["FENCED_LEADER_EPOCH"],
    level: "middle",
    title: "acks=all on the zombie: never acknowledged",
    at: (r) => r.event?.type === "timeout" && r.event.timer === "isr-expiration" && r.event.outcome === "shrink-proposed" && zombieIn(r)?.broker === r.event.broker,
    quiz: {
      kind: "claim",
      claim: "zombie-acksall",
      level: "middle",
      ask: (c) => {
        const p = c.rec.producers.find((x) => x.acks === "all");
        const sent = c.lastEvent((e) => e.type === "produce_request" && e.from === p.id && e.to === c.e.broker);
        return `Producer ${p.id} (acks=all) sent ${list(sent?.ev.records ?? [])} to the zombie at ${sent?.t} ms; it is ${c.t} ms now. Has ${p.id} been acknowledged?`;
      },
      answer: (c) => ({ key: c.rec.producers.find((x) => x.acks === "all").pending.length > 0 ? "waiting" : "acked", broker: c.e.broker }),
      choices: () => [
        { key: "waiting", label: "No: it is still waiting" },
        { key: "acked", label: "Yes: the zombie acknowledged it", why: "An acks=all write is acknowledged when the HW passes it, and the HW moves only when every ISR member has fetched it. The followers now fetch from the new leader, so the zombie's HW cannot move." },
      ],
      explain: (c) => `The zombie's HW is ${c.rep(c.e.broker).hw} and its LEO ${c.rep(c.e.broker).leo}: no follower has fetched from it since the election.`,
    },
    say: {
      middle: (c) => `Broker ${c.e.broker} has heard from no follower for more than replica.lag.time.max.ms (${c.cfg("replica.lag.time.max.ms")} ms) and proposes to shrink the ISR ${set(c.e.isr_before)} → ${set(c.e.isr)} (Partition.maybeShrinkIsr). The AlterPartition goes to the controller over the cut link and is lost; the HW keeps waiting for the old ISR.`,
      senior: (c) => `Had it arrived, the controller would refuse it: it carries leader epoch ${c.rep(c.e.broker).leader_epoch}, and the partition is at ${c.rec.partition.leader_epoch} (FENCED_LEADER_EPOCH). That is why acks=all (with min.insync.replicas ≥ 2) is safe against a zombie and acks=1 is not.`,
    },
  },
  {
    id: "rejoin",
    level: "middle",
    title: "The link heals: the zombie hears the news",
    // The controller's news reaches a broker whose log runs past the leader's.
    at: (r) => r.event?.type === "leader_and_isr" && r.event.outcome === "become-follower" && r.replicas.find((x) => x.broker === r.event.to)?.leo > r.replicas.find((x) => x.broker === r.partition.leader)?.leo,
    say: {
      middle: (c) => {
        // What carried the news: the broker's metadata fetch (KRaft's metadata log), or a heartbeat's answer.
        const via = c.lastEvent((e) => e.from === c.e.to && e.to === "controller" && (e.type === "metadata_fetch" || e.type === "heartbeat"))?.ev.type;
        const how = via === "heartbeat" ? "heartbeat reaches the controller again, and its answer" : "metadata fetch reaches the controller again, and the answer";
        return `${since(c, (e) => e.type === "heal")} ms after the heal, broker ${c.e.to}'s ${how} carries the metadata it missed: it is a follower of broker ${c.e.leader} at epoch ${c.e.leader_epoch}. Its log still ends at ${c.rep(c.e.to).leo}; the leader's at ${c.lead.leo}.`;
      },
    },
  },
  {
    id: "truncate",
    level: "junior",
    title: "The zombie truncates its writes",
    at: both(ev("fetch_response"), (r) => r.event.truncate_to !== undefined && r.event.leo_before > r.event.truncate_to),
    quiz: {
      kind: "value",
      ask: (c) => `Broker ${c.e.to} fetches from leader ${c.e.from} with LEO ${c.e.leo_before}. The leader's log ends at ${c.rep(c.e.from).leo}. What is broker ${c.e.to}'s LEO after the answer?`,
      answer: (c) => ({ value: c.rep(c.e.to).leo, broker: c.e.to, field: "leo" }),
      choices: (c) => [
        { value: c.e.leo_before, why: "It cannot keep them: its records after the end of its last epoch on the leader were never on the leader, and the leader's log is the partition's." },
        { value: c.rep(c.e.from).leo, why: "A follower does not copy the leader's LEO. It truncates to where its last epoch ends on the leader, then fetches what follows." },
      ],
      explain: (c) => `The answer names the diverging epoch: epoch ${c.e.diverging_epoch?.epoch} ends at ${c.e.diverging_epoch?.end_offset} on the leader, so broker ${c.e.to} truncates ${c.e.leo_before} → ${c.e.truncate_to}.`,
    },
    say: {
      junior: (c) => `${plural(c.e.leo_before - c.e.truncate_to, "record")} only the zombie had are gone. The stage keeps each one drawn as a ghost, “✕ id #${c.step}” (the step that removed it), and “Lost in this run” lists the ${plural(c.rec.lost.filter((l) => l.allowed).length, "acknowledged acks=1 write")} as permitted.`,
      senior: (c) => `The fetch answer carries the diverging epoch (from the KIP-595 work, used by followers since 2.8; they truncate in AbstractFetcherThread.truncateOnFetchResponse). The HW is not moved this round (${c.rep(c.e.to).hw}).`,
    },
  },
  {
    id: "retried",
    level: "principal",
    title: "The acks=all write is retried to the real leader",
    at: (r) => r.event?.type === "produce_response" && r.event.from === r.partition.leader && r.producers.some((x) => x.id === r.event.to && x.acks === "all" && x.retries > 0),
    say: {
      principal: (c) => `Producer ${c.e.to}'s write to the zombie was never answered; it refreshed its metadata, learnt leader ${c.e.from} and sent ${list(c.e.records ?? [])} there (${retries(producer(c, c.e.to).retries)} in all), acknowledged at ${c.t} ms at offset ${c.lead.log.find((x) => x.id === (c.e.records ?? [])[0])?.offset}. Nothing in Kafka stops a zombie from answering: only epochs fence it, when it talks to the controller or to a leader (KIP-320). What protects a write is acks=all with min.insync.replicas ≥ 2, so that a leader alone cannot acknowledge.`,
    },
  },
];

// ---- part 2: bounce-inside-session -------------------------------------------------

export const bounce = [
  {
    id: "restart",
    level: "junior",
    title: "A follower is killed and started again",
    at: ev("restart"),
    say: {
      junior: (c) => `Follower ${c.e.broker} was killed ${since(c, (e) => e.type === "crash")} ms ago and starts again at ${c.t} ms, with LEO ${c.rep(c.e.broker).leo} and the HW of its last checkpoint (${c.rep(c.e.broker).hw}). Its header reads “${c.rep(c.e.broker).state}” until the controller takes it back.`,
    },
  },
  {
    id: "refused",
    level: "junior",
    title: "The controller refuses the new incarnation",
    at: ev("broker_registration", { outcome: "refused" }),
    quiz: {
      kind: "claim",
      claim: "registration",
      ask: (c) => `Broker ${c.e.from} asks the controller to register again. The old incarnation's session (broker.session.timeout.ms = ${c.cfg("broker.session.timeout.ms")} ms from its last heartbeat) has not run out. Does the controller register it?`,
      answer: (c) => ({ key: c.e.outcome === "refused" ? "refused" : "registered", broker: c.e.from }),
      choices: () => [
        { key: "registered", label: "Yes: it is the same broker id", why: "Under KRaft the controller cannot tell a restarted broker from a second process with the same id while the old session lasts: ClusterControlManager.registerBroker refuses it (DuplicateBrokerRegistrationException) until the session has expired." },
        { key: "refused", label: "No: not while the old session is valid" },
      ],
      explain: (c) => `Refused: ${c.e.error}. The broker asks again one heartbeat interval (${c.cfg("broker.heartbeat.interval.ms")} ms) after each refusal.`,
    },
    say: {
      junior: (c) => `Meanwhile the controller still counts the old incarnation: broker ${c.e.from} is in the ISR ${set(c.rec.partition.isr)}, so acks=all writes wait for it (leader HW ${c.lead.hw}, LEO ${c.lead.leo}).`,
    },
  },
  {
    id: "fetches-unregistered",
    level: "middle",
    title: "It fetches before it is registered",
    at: (r) => r.event?.type === "fetch_request" && r.replicas.some((x) => x.broker === r.event.from && x.incarnation > 0 && x.state === "starting"),
    say: {
      middle: (c) => `At ${c.t} ms broker ${c.e.from} fetches from leader ${c.e.to}, though the controller has not registered it: a restarted KRaft broker publishes the metadata image it loaded once its first metadata Fetch is answered (leader ${c.L}, epoch ${c.rec.partition.leader_epoch}), becomes a follower and fetches with broker epoch -1 until it is registered. The leader counts these fetches: broker ${c.e.from} is still in the ISR ${set(c.rec.partition.isr)}, so once it has caught up the writes that waited for it are acknowledged (leader HW ${c.lead.hw}, LEO ${c.lead.leo}).`,
      senior: () => "BrokerServer.startup installs the metadata publishers before it waits for the controller to acknowledge it, and the raft client fetches the metadata log as an observer, registered or not; ReplicaManager.applyDelta then makes it a follower. Were its image to name it the leader, it would lead in its own view but serve nothing: its listeners open only once it is unfenced.",
    },
  },
  {
    id: "fenced",
    level: "middle",
    title: "The old session runs out",
    // Whichever comes first once the session has expired: the controller's stale-broker
    // check, or the new incarnation's next try (its registration then removes the old one).
    at: (r) => ev("isr_change", { outcome: "fenced" })(r) || ev("broker_registration", { outcome: "registered", incarnation: (i) => i > 0 })(r),
    say: {
      middle: (c) => {
        const b = c.e.broker ?? c.e.from;
        const since0 = since(c, (e) => e.type === "crash" && e.broker === b);
        return c.e.type === "isr_change"
          ? `At ${c.t} ms the controller's stale-broker check fences the old incarnation of broker ${b}, ${since0} ms after it was killed. ISR ${set(c.e.isr)}.`
          : `At ${c.t} ms, ${since0} ms after broker ${b} was killed, its old session has run out and no stale-broker check has fenced it yet: the new incarnation's next try is registered, and the registration itself removes the old one (BrokerUncleanShutdownHandler: out of the ISR, replaced where it led). ISR ${set(c.rec.partition.isr)}.`;
      },
    },
  },
  {
    id: "registered",
    level: "junior",
    title: "Registered, caught up, back in the ISR",
    // The senior paragraph contrasts KRaft with the ZooKeeper era on purpose.
    claims: () => ["ZooKeeper"],
    at: (r, p) => r.event?.type === "alter_partition" && r.event.outcome === "committed" && r.event.isr.length > (p?.partition.isr.length ?? 0) && r.replicas.some((x) => x.incarnation > 0),
    say: {
      junior: (c) => {
        const b = c.e.isr.find((x) => !c.prev.partition.isr.includes(x));
        return `The new incarnation registered once the old session was gone (registered fenced, unfenced at its next heartbeat), caught up to LEO ${c.rep(b).leo}: ISR ${set(c.prev.partition.isr)} → ${set(c.e.isr)} at ${c.t} ms, ${since(c, (e) => e.type === "restart")} ms after the restart.`;
      },
      senior: () => "KRaft in order: registerBroker (refused while the old session lasts; the broker tries again one heartbeat interval after each refusal) → once the session has expired, the old incarnation removed: fenced by a stale-broker check (handleBrokerFenced), or by the registration itself if it comes first (BrokerUncleanShutdownHandler) → registered fenced → unfenced at a heartbeat once it has caught up with the metadata (handleBrokerUnfenced) → in the ISR again by the leader's AlterPartition at its next fetch (it has been fetching since its first metadata answer). Under the ZooKeeper-era presets the same restart does not get in at all: the killed process's ZooKeeper session still holds /brokers/ids/N, the new process's create is answered NodeExists, its startup fails and it exits; the controller learns of the death when the old session expires, and only a start after that registers (onBrokerStartup).",
    },
  },
  {
    id: "leader-crash",
    level: "senior",
    title: "Now the leader bounces",
    at: (r) => r.event?.type === "crash" && r.event.broker === r.partition.leader,
    say: {
      senior: (c) => `At ${c.t} ms leader ${c.e.broker} is killed and, as before, started again at once. Producer ${c.rec.producers[0].id}'s connection is reset: its writes are refused at the dead address and retried (${retryWord(c, c.rec.producers[0].id)} on its pill).`,
    },
  },
  {
    id: "leader-elected",
    level: "senior",
    title: "A new leader only at the fence",
    at: both(ev("leader_election", { outcome: "fenced" }), (r) => r.event.leader !== r.event.broker),
    quiz: {
      kind: "claim",
      claim: "bounce-election",
      ask: (c) => `Leader ${c.e.broker} was killed and started again ${since(c, (e) => e.type === "crash" && e.broker === c.e.broker) - since(c, (e) => e.type === "restart" && e.broker === c.e.broker)} ms later, inside its session. When does another broker become leader?`,
      answer: (c) => ({ key: c.e.timer === "fence-check" ? "at-fence" : "at-restart", broker: c.e.broker }),
      choices: () => [
        { key: "at-restart", label: "At the restart: the controller sees it was restarted", why: "The controller sees only a registration it refuses (the old session is valid). It keeps the old incarnation as leader, so for the whole session the partition's leader is a process that no longer exists." },
        { key: "at-fence", label: "Only when the old session is fenced" },
      ],
      explain: (c) => `Broker ${c.e.leader} is elected at ${c.t} ms, ${since(c, (e) => e.type === "crash" && e.broker === c.e.broker)} ms after the kill: fenced at the stale-broker check after broker.session.timeout.ms (${c.cfg("broker.session.timeout.ms")} ms).`,
    },
    say: {
      senior: (c) => `For ${since(c, (e) => e.type === "crash" && e.broker === c.e.broker)} ms the partition had no leader that could take a write; producer ${c.rec.producers[0].id} made ${retries(c.rec.producers[0].retries)} and has ${plural(c.rec.producers[0].pending.length, "write")} waiting.`,
      principal: () => "A fast bounce is not a fast recovery under KRaft: the old session must run out first. A controlled shutdown (not modelled here) moves leadership away before the process stops.",
    },
  },
];

// ---- part 3: retry-duplicates ---------------------------------------------------------

export const duplicates = [
  {
    id: "cut",
    level: "junior",
    title: "The answers to both producers are cut",
    // Pinned where every producer's link is cut.
    at: (r) => r.event?.type === "partition" && r.producers.every((p) => (r.partition.cut_links ?? []).some(([, to]) => to === p.id)),
    say: {
      junior: (c) => `At ${c.t} ms the links from leader ${c.L} to ${list(c.rec.partition.cut_links.map(([, to]) => String(to)))} are cut (red arcs with ✕). Requests still arrive; answers do not. Both producers use acks=all; ${list(c.rec.producers.map((p) => `${p.id} has enable.idempotence = ${p.idempotent}`))}.`,
    },
  },
  {
    id: "timeout",
    level: "junior",
    title: "Written and committed, but the producer gives up on the request",
    at: ev("timeout", { timer: "produce-request-timeout" }),
    say: {
      junior: (c) => {
        const b = producer(c, c.e.producer).batches?.find((x) => x.attempts > 0);
        const id = b?.records?.[0] ?? producer(c, c.e.producer).pending[0];
        return `${id} is in leader ${c.L}'s log and committed (HW ${c.lead.hw}), but its acknowledgement is held on the cut link. After request.timeout.ms (${pset(c, c.e.producer, "request.timeout.ms")} ms) ${c.e.producer} gives the request up (${c.e.error}) and will send it again: its pill shows “retry ${b?.attempts ?? 1}”.`;
      },
    },
  },
  {
    id: "idem",
    level: "middle",
    title: "With idempotence: the resend is recognised",
    at: both(ev("produce_request"), (r) => r.event.duplicate === true),
    quiz: {
      kind: "claim",
      claim: "duplicate",
      ask: (c) => `${c.e.from} (enable.idempotence = true) resends ${c.e.records[0]}, which leader ${c.e.to} already has. How many copies of ${c.e.records[0]} will the log hold?`,
      answer: (c) => ({ key: copies(c.rec, c.e.to, c.e.records[0]) > 1 ? "twice" : "once", broker: c.e.to, id: c.e.records[0] }),
      choices: () => [
        { key: "once", label: "One" },
        { key: "twice", label: "Two", why: "The batch carries its producer id, epoch and sequence number; the leader keeps the last sequences of each producer (ProducerStateManager) and answers a known one as a duplicate without appending (UnifiedLog.analyzeAndValidateProducerState)." },
      ],
      explain: (c) => `${c.e.records[0]} stands ${copies(c.rec, c.e.to, c.e.records[0]) === 1 ? "once" : `${copies(c.rec, c.e.to, c.e.records[0])} times`} in broker ${c.e.to}'s log; the leader answers the resend as a duplicate and ${c.e.from} is acknowledged.`,
    },
    say: {
      middle: (c) => `Broker ${c.e.to}'s LEO stays ${c.rep(c.e.to).leo}. Idempotence has been the Java producer's default since 3.0 (KIP-679), but only with acks=all: with acks=1 it is off (and asking for both is a configuration error).`,
    },
  },
  {
    id: "plain",
    level: "junior",
    title: "Without idempotence: the record is written twice",
    at: violation("duplicate-record"),
    quiz: {
      kind: "claim",
      claim: "duplicate",
      ask: (c) => `${c.e.from} (enable.idempotence = false) resends ${c.e.records[0]}, which leader ${c.e.to} already has. How many copies of ${c.e.records[0]} will the log hold?`,
      answer: (c) => ({ key: copies(c.rec, c.e.to, c.e.records[0]) > 1 ? "twice" : "once", broker: c.e.to, id: c.e.records[0] }),
      choices: () => [
        { key: "once", label: "One", why: "Without a producer id and sequence the leader cannot tell a resend from a new record: it appends what it is sent." },
        { key: "twice", label: "Two" },
      ],
      explain: (c) => `${c.e.records[0]} stands ${copies(c.rec, c.e.to, c.e.records[0])} times in broker ${c.e.to}'s log, at offsets ${list(c.rep(c.e.to).log.filter((x) => x.id === c.e.records[0]).map((x) => String(x.offset)))}.`,
    },
    say: {
      junior: (c) => `The second copy is marked “×2” on the stage. ${c.rec.violations.find((v) => v.invariant === "duplicate-record").text} It is listed as permitted: with idempotence off, Kafka promises at-least-once, and a consumer will read ${c.e.records[0]} twice.`,
    },
  },
  {
    id: "acked",
    level: "senior",
    title: "The cost of a lost answer",
    at: (r, p) => r.event?.type === "produce_response" && r.producers.some((x) => x.id === r.event.to && x.retries > 0) && p && r.violations.length === 0 && r.event.to === r.producers.find((x) => !x.idempotent)?.id,
    say: {
      senior: (c) => `${c.e.to} is acknowledged for ${list(c.e.records ?? [])} at ${c.t} ms, ${c.t - (c.lastEvent((e) => e.type === "produce" && e.producer === c.e.to && (e.records ?? []).includes((c.e.records ?? [])[0]))?.t ?? c.t)} ms after it was first sent. The first copy was committed long before: only the answer was lost. Without idempotence, any retry after a timeout can write twice; with it, the retry is free.`,
    },
  },
];

// ---- part 4: retry-through-failover -----------------------------------------------------

export const failover = [
  {
    id: "crash",
    level: "junior",
    title: "The leader's process is killed",
    at: ev("crash"),
    say: {
      junior: (c) => `At ${c.t} ms leader ${c.e.broker} is killed. Producer ${c.rec.producers[0].id} (acks=all, idempotent) writes a record every few hundred ms; the ones it sends now have nowhere to go.`,
    },
  },
  {
    id: "stale",
    level: "junior",
    title: "Refused, and the metadata still names the dead leader",
    at: (r, p) => r.event?.type === "metadata_response" && r.event.leader !== undefined && r.time_ms > 0 && !r.replicas.find((x) => x.broker === r.partition.leader)?.alive,
    quiz: {
      kind: "claim",
      claim: "stale-metadata",
      ask: (c) => `${c.e.to}'s write to broker ${crashed(c)} was refused (the connection is reset). It asks broker ${c.e.from} for the partition's metadata. Which leader does the answer name?`,
      answer: (c) => ({ key: c.e.leader === crashed(c) ? "dead" : "live", broker: crashed(c) }),
      choices: (c) => [
        { key: "dead", label: `Broker ${crashed(c)}, the dead one` },
        { key: "live", label: "A live broker", why: "Metadata is the controller's view, and the controller learns of a dead broker only when its session runs out (broker.session.timeout.ms). Until the fence every broker's metadata names the dead leader." },
      ],
      explain: (c) => `The answer names leader ${c.e.leader} at epoch ${c.e.leader_epoch}: the controller has not fenced broker ${crashed(c)} yet.`,
    },
    say: {
      junior: (c) => `So ${c.e.to} waits and tries again (${retryWord(c, c.e.to)} on its pill), backing off between attempts.`,
      senior: (c) => {
        const r = c.lastEvent((e) => e.type === "connection_reset" && e.backoff_ms !== undefined);
        return `The backoff grows from retry.backoff.ms up to retry.backoff.max.ms with jitter (KIP-580, 3.7; Sender.canRetry, ExponentialBackoff): the last one was ${r?.ev.backoff_ms} ms, after attempt ${r?.ev.attempts}.`;
      },
    },
  },
  {
    id: "elected",
    level: "junior",
    title: "Fenced at last: a new leader",
    at: ev("leader_election", { outcome: "fenced" }),
    say: {
      junior: (c) => `At ${c.t} ms, ${since(c, (e) => e.type === "crash")} ms after the kill, the controller fences broker ${c.e.broker} (broker.session.timeout.ms = ${c.cfg("broker.session.timeout.ms")} ms after its last heartbeat, at the next stale-broker check) and elects broker ${c.e.leader}, epoch ${c.e.leader_epoch}. ${c.rec.producers[0].id} has ${plural(c.rec.producers[0].pending.length, "write")} waiting.`,
    },
  },
  {
    id: "learns",
    level: "middle",
    title: "The producer learns the new leader",
    at: ev("metadata_response", { outcome: "updated" }),
    // The time since the election, read from the run's election step.
    claims: (c) => [since(c, (e) => e.type === "leader_election")],
    say: {
      middle: (c) => `${since(c, (e) => e.type === "leader_election")} ms after the election, ${c.e.to}'s next metadata refresh names leader ${c.e.leader} (epoch ${c.e.leader_epoch}); every waiting batch goes to broker ${c.e.leader}, in order.`,
    },
  },
  {
    id: "delivered",
    level: "junior",
    title: "Delivered: once each, in order",
    at: (r, p) => r.event?.type === "produce_response" && r.event.from === r.partition.leader && r.partition.leader_epoch > 0,
    // The time since the election, read from the run's election step.
    claims: (c) => [since(c, (e) => e.type === "leader_election")],
    quiz: {
      kind: "claim",
      claim: "failover-copies",
      ask: (c) => `${c.e.to} sent its waiting writes again and again while broker ${crashed(c)} was dead (${retries(producer(c, c.e.to).retries)} in all), ${(c.e.records ?? [])[0]} among them. How many copies of ${(c.e.records ?? [])[0]} does the new leader ${c.e.from} hold?`,
      answer: (c) => ({ key: copies(c.rec, c.e.from, (c.e.records ?? [])[0]) > 1 ? "many" : "one", broker: c.e.from, id: (c.e.records ?? [])[0] }),
      choices: () => [
        { key: "one", label: "One" },
        { key: "many", label: "One per attempt", why: "Attempts sent to the dead broker never reached a log: they were refused at its address. The one that reached the new leader was appended once (and had it been answered too late and sent again, idempotence would have kept it once)." },
      ],
      explain: (c) => `${(c.e.records ?? [])[0]} stands once in broker ${c.e.from}'s log, at offset ${c.rep(c.e.from).log.find((x) => x.id === (c.e.records ?? [])[0])?.offset}.`,
    },
    say: {
      junior: (c) => `${c.e.to} is acknowledged at ${c.t} ms, ${since(c, (e) => e.type === "leader_election")} ms after the election and ${since(c, (e) => e.type === "crash")} ms after the kill. The acknowledgement times show the failover: nothing between the kill and the election, then the backlog at once.`,
      principal: (c) => `A write waits at most delivery.timeout.ms (${pset(c, c.e.to, "delivery.timeout.ms")} ms here) before the producer gives it up. A failover by fencing costs about broker.session.timeout.ms plus a metadata refresh; keep delivery.timeout.ms well above that, or a plain crash turns into failed sends.`,
    },
  },
];
