//! What keeps a run going past its script, in words (`sim/settle.rs` decides it):
//! the page says how far the run goes and why.

use crate::sim::msg::Node;
use crate::sim::settle::Pending;
use crate::sim::Sim;

fn node(sim: &Sim, n: Node) -> String {
    match n {
        Node::Broker(b) => format!("broker {b}"),
        Node::Producer(p) => sim.scenario.producers.get(p).map_or_else(|| "a producer".into(), |s| s.id.clone()),
        Node::Consumer(c) => sim.consumers.get(c).map_or_else(|| "a consumer".into(), |s| s.spec.id.clone()),
        Node::Controller => {
            sim.zookeeper_controller_id().map_or_else(|| "the controller".into(), |c| format!("the controller (broker {c})"))
        }
        Node::ZooKeeper => "ZooKeeper".into(),
    }
}

/// One pending consequence, as a phrase: "the controller fences broker 0 at 9,000 ms".
pub fn pending_text(sim: &Sim, p: &Pending) -> String {
    if cfg!(feature = "first") {
        return String::new();
    }
    let leader = sim.controller.leader.map_or_else(|| "the leader".to_string(), |l| format!("leader {l}"));
    let producer = |i: usize| sim.scenario.producers.get(i).map_or("a producer", |s| s.id.as_str());
    let consumer = |i: usize| sim.consumers.get(i).map_or("a consumer", |s| s.spec.id.as_str());
    match *p {
        Pending::SessionExpiry { broker, at_ms } => {
            format!("the controller fences broker {broker} at {at_ms} ms (broker.session.timeout.ms after its last heartbeat)")
        }
        Pending::ProduceTimeout { producer: i, at_ms } => {
            format!("{}'s unanswered write times out at {at_ms} ms (request.timeout.ms)", producer(i))
        }
        Pending::DeliveryTimeout { producer: i, at_ms } => format!(
            "{}'s oldest write not yet acknowledged passes delivery.timeout.ms ({} ms) at {at_ms} ms and fails",
            producer(i),
            sim.producers[i].settings.delivery_timeout_ms.unwrap_or_default()
        ),
        Pending::AccumulatorExpiry { producer: i, at_ms } => format!(
            "{}'s write waiting in its accumulator expires at {at_ms} ms (request.timeout.ms, {} ms: before 2.1 there is no delivery.timeout.ms)",
            producer(i),
            sim.producers[i].settings.request_timeout_ms
        ),
        Pending::ProducerWake { producer: i, at_ms } => {
            let p = &sim.producers[i];
            let what = if p.batches.iter().any(|b| b.request.is_none() && b.retry_at == at_ms) {
                format!("sends its writes again at {at_ms} ms, after retry.backoff.ms")
            } else if p.meta.blackout.values().any(|&until| until == at_ms) {
                format!("connects again at {at_ms} ms, after reconnect.backoff.ms")
            } else if p.meta.wanted {
                format!("asks for metadata again at {at_ms} ms, after its refresh backoff (retry.backoff.ms)")
            } else {
                format!("refreshes its metadata at {at_ms} ms (metadata.max.age.ms)")
            };
            format!("{} {what}", producer(i))
        }
        Pending::ProduceExpiry { producer: i, at_ms } => format!(
            "{} gives its unsent writes up at {at_ms} ms (delivery.timeout.ms): no broker can lead the partition while the controller's leader is cut off from it",
            producer(i)
        ),
        Pending::DelayedProduce { leader, at_ms } => {
            format!("an acks=all write waits at leader {leader} for the ISR, until {at_ms} ms at most")
        }
        Pending::LostFetch { follower, at_ms } => {
            format!(
                "follower {follower}'s lost Fetch times out at {at_ms} ms (replica.socket.timeout.ms), then it backs off and fetches again"
            )
        }
        Pending::LostConsumerFetch { consumer: i, at_ms } => {
            format!("{}'s lost fetch times out at {at_ms} ms and is sent again", consumer(i))
        }
        Pending::Message { kind, from, to, at_ms } => {
            format!("{} from {} reaches {} at {at_ms} ms", kind.replace('_', " "), node(sim, from), node(sim, to))
        }
        Pending::CatchingUp { follower } => format!("follower {follower} catches up with {leader}"),
        Pending::ShrinkDue { follower } => {
            format!("{leader} drops follower {follower}, which cannot reach it, from the ISR (after replica.lag.time.max.ms)")
        }
        Pending::Rejoining { follower } => format!("follower {follower} catches up with {leader} and rejoins the ISR"),
        Pending::ConsumerBehind { consumer: i } => format!("{} reads up to the HW of the replica it reads from", consumer(i)),
        Pending::ConsumerOnLaggingReplica { consumer: i, replica, at_ms } => format!(
            "{} reads from broker {replica}, whose HW lags {leader}'s, until its metadata refresh at {at_ms} ms (metadata.max.age.ms); then it asks {leader} again",
            consumer(i)
        ),
    }
}
