//! Sentences for producers and consumers, and for a broker serving a consumer.

use super::{acks_str, plural, Narrator};
use crate::sim::event::Served;
use crate::sim::log::RecordId;
use crate::sim::{ConsumerFetchResponse, Event, RETRY_BACKOFF_MS};

impl Narrator<'_> {
    /// A `produce` action: the producer sends (or has no leader to send to).
    pub(super) fn produce(&self) -> String {
        for e in self.events {
            if let Event::Produced { producer, first_n, count, leader, msg } = *e {
                let p = self.producer(producer);
                let Some(leader) = leader else {
                    return format!(
                        "{p} has {count} record{} to send, but the partition has no leader: the write fails.",
                        plural(count as usize)
                    );
                };
                let name = |n: u32| self.sim.record_name(RecordId { producer: producer as u16, n });
                let range = if count == 1 { name(first_n) } else { format!("{} … {}", name(first_n), name(first_n + count - 1)) };
                return format!(
                    "{p} sends {count} record{} ({range}) to leader {leader} with acks={}.{}",
                    plural(count as usize),
                    acks_str(self.sim.scenario.producers[producer].acks),
                    self.note(msg)
                );
            }
        }
        String::new()
    }

    pub(super) fn produce_response(&self) -> String {
        for e in self.events {
            match *e {
                Event::ProduceResponseIgnored { producer } => {
                    return format!("{} gets an answer to a request it has already given up on; ignored.", self.producer(producer))
                }
                Event::ProduceAcked { producer, count } => {
                    return format!("{} gets its acknowledgement: {count} record{} written.", self.producer(producer), plural(count))
                }
                Event::ProduceFailed { producer, error } => {
                    return format!("{}'s write fails with {}.", self.producer(producer), error.name())
                }
                _ => {}
            }
        }
        String::new()
    }

    pub(super) fn produce_expiry(&self) -> String {
        for e in self.events {
            if let Event::DelayedProduceExpired { leader, producer, required_offset, msg } = *e {
                return format!(
                    "{}'s acks=all write waited its request timeout on leader {leader} without the HW reaching {required_offset}: REQUEST_TIMED_OUT (the records stay in the log).{}",
                    self.producer(producer),
                    self.note(Some(msg))
                );
            }
        }
        String::new()
    }

    pub(super) fn produce_request_timeout(&self, producer: usize) -> String {
        for e in self.events {
            if let Event::ProduceTimedOut { count, .. } = *e {
                return format!(
                    "{} has had no answer for request.timeout.ms ({} ms): {count} record{} count as failed (they may still be in the log).",
                    self.producer(producer),
                    self.sim.scenario.producers[producer].request_timeout_ms,
                    plural(count)
                );
            }
        }
        String::new()
    }

    /// A broker serving a consumer's fetch: answered, or parked.
    pub(super) fn consumer_served(&self) -> String {
        for e in self.events {
            match *e {
                Event::ConsumerFetchAnswered { broker: id, consumer, leader, offset, records: n, hw, why, msg, .. } => {
                    let c = self.consumer(consumer);
                    let (role, lower) = if leader { ("Leader", "leader") } else { ("Follower", "follower") };
                    let text = match why {
                        Served::NotLeader => format!("Broker {id} does not lead and is not {c}'s preferred replica: NOT_LEADER_OR_FOLLOWER."),
                        Served::Redirect { to } => format!(
                            "Leader {id} tells {c} to read from broker {to}, its preferred read replica, and returns no records (KIP-392)."
                        ),
                        Served::OutOfRange { start, leo } => {
                            format!("{role} {id} has no offset {offset} (its log is [{start}, {leo})): OFFSET_OUT_OF_RANGE for {c}.")
                        }
                        Served::Records => format!("{role} {id} returns {n} record{} from {offset} to {c}: everything below its HW {hw}.", plural(n)),
                        Served::Expired => {
                            format!("{c}'s fetch at {offset} has waited fetch.max.wait.ms on {lower} {id}; it is answered with no records (HW {hw}).")
                        }
                        Served::AboveHw => format!(
                            "{c} asks {lower} {id} for offset {offset}, above its HW {hw}: answered at once with no records (DelayedFetch Case F), so the consumer asks again."
                        ),
                        Served::NoWait => format!("{c} asks {lower} {id} for offset {offset}, at its HW: nothing to read, and fetch.max.wait.ms is 0."),
                    };
                    return format!("{text}{}", self.note(Some(msg)));
                }
                Event::ConsumerFetchParked { broker: id, consumer, leader, offset, hw, wait, above } => {
                    return format!(
                        "{} asks {} {id} for offset {offset}, {} its HW {hw}: nothing it may read yet. The fetch waits up to fetch.max.wait.ms ({wait} ms) for the HW to move.",
                        self.consumer(consumer),
                        if leader { "leader" } else { "follower" },
                        if above { "above" } else { "at" }
                    );
                }
                _ => {}
            }
        }
        String::new()
    }

    /// A consumer receives a broker's answer, then fetches again.
    pub(super) fn consumer_fetch_response(&self, resp: &ConsumerFetchResponse) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::ConsumerResponseIgnored { consumer } => {
                    return format!("{} gets an answer to a fetch it has given up on; ignored.", self.consumer(consumer))
                }
                Event::ConsumerFetchFailed { consumer, error } => {
                    return format!(
                        "{}'s fetch fails with {}; it refreshes metadata and retries in {RETRY_BACKOFF_MS} ms.",
                        self.consumer(consumer),
                        error.name()
                    )
                }
                Event::ConsumerBackToLeader { consumer, from } => {
                    text = format!(
                        "{} is told OFFSET_OUT_OF_RANGE by follower {from}; it forgets its preferred replica and goes back to the leader.",
                        self.consumer(consumer)
                    );
                }
                Event::ConsumerOffsetReset { consumer, from, position } => {
                    text = format!(
                        "{} is told OFFSET_OUT_OF_RANGE by broker {from}; auto.offset.reset moves it to {position}.",
                        self.consumer(consumer)
                    );
                }
                Event::ConsumerRedirected { consumer, to } => {
                    text = format!("{} switches to broker {to} as told.", self.consumer(consumer))
                }
                Event::ConsumerGotNothing { consumer, from, hw } => {
                    text = format!("{} gets no records from broker {from} (its HW is {hw}).", self.consumer(consumer));
                }
                Event::ConsumerReceived { consumer, from, count, position } => {
                    let ids: Vec<String> = resp.records.iter().filter_map(|(_, e)| e.map(|e| self.sim.record_name(e.id))).collect();
                    let shown = if ids.is_empty() { format!("{count} record{}", plural(count as usize)) } else { ids.join(", ") };
                    text = format!("{} receives {shown} from broker {from}; its position is now {position}.", self.consumer(consumer));
                }
                Event::ConsumerFetchSent { broker, offset, msg, .. } => {
                    text.push_str(&format!(" It fetches again from broker {broker} at {offset}.{}", self.note(Some(msg))));
                }
                _ => {}
            }
        }
        text
    }

    /// A consumer's request timeout, or the end of its backoff.
    pub(super) fn consumer_request_timeout(&self) -> String {
        let mut head = String::new();
        for e in self.events {
            match *e {
                Event::ConsumerRetries { consumer, after_backoff } => {
                    let c = self.consumer(consumer);
                    head = if after_backoff {
                        format!("{c} retries.")
                    } else {
                        format!("{c}'s fetch has had no answer for request.timeout.ms; it sends another.")
                    };
                }
                Event::ConsumerFetchSent { broker, offset, msg, .. } => {
                    return format!("{head} Fetch at {offset} to broker {broker}.{}", self.note(Some(msg)))
                }
                Event::ConsumerWaitsForLeader { .. } => return format!("{head} There is no leader yet; it waits {RETRY_BACKOFF_MS} ms."),
                _ => {}
            }
        }
        head
    }
}
