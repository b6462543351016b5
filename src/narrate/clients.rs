//! Sentences for producers and consumers, and for a broker serving a consumer.

use super::{acks_str, plural, Narrator};
use crate::scenario::Acks;
use crate::sim::event::Served;
use crate::sim::log::RecordId;
use crate::sim::{ConsumerFetchResponse, Event, KafkaError, Node};

impl Narrator<'_> {
    /// Records as a range of names: "p1-3" or "p1-3 … p1-5".
    fn range(&self, producer: usize, first_n: u32, count: usize) -> String {
        let name = |n: u32| self.sim.record_name(RecordId { producer: producer as u16, n });
        if count == 1 {
            name(first_n)
        } else {
            format!("{} … {}", name(first_n), name(first_n + count as u32 - 1))
        }
    }

    /// What the producer's sender did this step (sends, retries, failures), as sentences.
    fn sender(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::ProduceSent { producer, broker, first_n, count, retry, msg } => {
                    let p = self.producer(producer);
                    let what = self.range(producer, first_n, count);
                    let held = if self.step.is_held(Some(msg)) { " TCP holds it: the link is cut." } else { self.note(Some(msg)) };
                    text.push_str(&if retry {
                        format!(" {p} retries {what} to broker {broker}.{held}")
                    } else {
                        format!(
                            " {p} sends {what} to broker {broker}, the leader its metadata names, with acks={}.{held}",
                            acks_str(self.sim.producers[producer].settings.acks)
                        )
                    });
                }
                Event::ProducerAwaitsLeader { producer } => {
                    text.push_str(&format!(" {} knows no leader: the records wait for metadata.", self.producer(producer)));
                }
                Event::ProduceWillRetry { producer, error, count, attempts, backoff } => text.push_str(&format!(
                    " {} will retry {} record{} (retry {attempts}) in {backoff} ms after {}.",
                    self.producer(producer),
                    count,
                    plural(count),
                    error.name(self.sim.scenario.preset)
                )),
                Event::ProduceFailed { producer, error, count, bumped } => {
                    let retries = self.sim.producers[producer].settings.retries;
                    let expired = self.events.iter().any(|e| matches!(*e, Event::ProduceExpired { producer: q, .. } if q == producer));
                    let why = match (error.retriable() && !expired, retries) {
                        (true, 0) if self.sim.scenario.producers[producer].retries.is_none() => {
                            ", retriable, but retries is 0 (the producer's default before 2.1, KIP-91)"
                        }
                        (true, 0) => ", retriable, but retries is 0",
                        _ => "",
                    };
                    text.push_str(&format!(
                        " {} gives up on {count} record{}: {}{why}.{}",
                        self.producer(producer),
                        plural(count),
                        error.name(self.sim.scenario.preset),
                        if bumped {
                            " Being idempotent, it bumps its producer epoch so later sequence numbers start afresh (KIP-360)."
                        } else {
                            ""
                        }
                    ));
                }
                Event::ProduceExpired { producer, count, .. } => {
                    let s = &self.sim.producers[producer].settings;
                    text.push_str(&match s.delivery_timeout_ms {
                        Some(limit) => format!(" {count} record{} of {} passed delivery.timeout.ms ({limit} ms).", plural(count), self.producer(producer)),
                        None => format!(
                            " {count} record{} of {} waited in its accumulator over request.timeout.ms ({} ms) and expired (before 2.1 there is no delivery.timeout.ms, KIP-91).",
                            plural(count),
                            self.producer(producer),
                            s.request_timeout_ms
                        ),
                    })
                }
                Event::MetadataRequested { client, broker, msg } => {
                    text.push_str(&format!(" {} asks broker {broker} for metadata.{}", self.client(client), self.note(Some(msg))))
                }
                _ => {}
            }
        }
        text
    }

    /// A client by its id.
    fn client(&self, client: Node) -> String {
        match client {
            Node::Producer(p) => self.producer(p).to_string(),
            Node::Consumer(c) => self.consumer(c).to_string(),
            other => self.node(other),
        }
    }

    /// A `produce` action: the records join the producer's accumulator, and the sender sends.
    pub(super) fn produce(&self) -> String {
        for e in self.events {
            if let Event::Produced { producer, first_n, count } = *e {
                let p = self.producer(producer);
                let batch = self.range(producer, first_n, count as usize);
                return format!("{p} has {count} record{} ({batch}) to write.{}", plural(count as usize), self.sender());
            }
        }
        String::new()
    }

    pub(super) fn produce_response(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::ProduceResponseIgnored { producer } => {
                    return format!("{} gets an answer to a request it has already given up on; ignored.", self.producer(producer))
                }
                Event::ProduceAcked { producer, count, duplicate } => {
                    text = format!("{} gets its acknowledgement: {count} record{} written.", self.producer(producer), plural(count));
                    if duplicate {
                        text.push_str(" (The leader had them already: the retry was answered from its producer state.)");
                    }
                }
                Event::ProduceWillRetry { producer, error, .. } | Event::ProduceFailed { producer, error, .. } if text.is_empty() => {
                    text = format!("{}'s write gets {}.", self.producer(producer), error.name(self.sim.scenario.preset));
                    if error.refreshes_metadata() {
                        text.push_str(" Its metadata is stale: it asks for new metadata.");
                    }
                }
                _ => {}
            }
        }
        text + &self.sender()
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
            if let Event::ProduceTimedOut { broker, requests, .. } = *e {
                return format!(
                    "{} has had no answer from broker {broker} for request.timeout.ms ({} ms): it closes the connection, and its {requests} request{} on it fail{} (the records may be in the log).{}",
                    self.producer(producer),
                    self.sim.producers[producer].settings.request_timeout_ms,
                    plural(requests),
                    if requests == 1 { "s" } else { "" },
                    self.sender()
                );
            }
        }
        String::new()
    }

    /// A producer's sender wakes up (a backoff over, a delivery timeout, old metadata).
    pub(super) fn producer_wake(&self, producer: usize) -> String {
        let text = self.sender();
        if text.is_empty() {
            format!("{}'s sender wakes up; nothing to do yet.", self.producer(producer))
        } else {
            format!("{}'s sender wakes up.{text}", self.producer(producer))
        }
    }

    /// A broker answers a client's metadata request from its own (possibly stale) view.
    pub(super) fn metadata_request(&self) -> String {
        for e in self.events {
            if let Event::MetadataAnswered { broker, client, leader, leader_epoch, msg } = *e {
                let view = match leader {
                    Some(l) => format!("leader {l} in epoch {leader_epoch}"),
                    None => "no leader".to_string(),
                };
                let stale =
                    if leader_epoch < self.sim.controller.leader_epoch { " (stale: it has not heard the controller's latest)" } else { "" };
                return format!("Broker {broker} tells {} what it knows: {view}{stale}.{}", self.client(client), self.note(Some(msg)));
            }
        }
        String::new()
    }

    /// A client takes (or ignores) a broker's metadata answer.
    pub(super) fn metadata_response(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::MetadataResponseIgnored { client } => {
                    return format!("{} ignores a metadata answer it no longer waits for.", self.client(client))
                }
                Event::MetadataUpdated { client, from, leader, leader_epoch, changed, stale } => {
                    let c = self.client(client);
                    text = match (changed, stale, leader) {
                        (true, ..) => {
                            format!("{c} learns from broker {from}: the leader is {} (epoch {leader_epoch}).", leader.unwrap_or_default())
                        }
                        (_, true, _) => format!("{c} ignores broker {from}'s older metadata (epoch {leader_epoch}, KIP-320)."),
                        (_, _, None) => format!("Broker {from} knows no leader either; {c} will ask again after a backoff."),
                        _ => format!(
                            "{c}'s metadata is confirmed by broker {from}: leader {} (epoch {leader_epoch}).",
                            leader.unwrap_or_default()
                        ),
                    };
                }
                _ => {}
            }
        }
        text + &self.sender() + &self.consumer_next()
    }

    pub(super) fn metadata_timeout(&self) -> String {
        for e in self.events {
            if let Event::MetadataTimedOut { client, broker } = *e {
                return format!(
                    "{}'s metadata request to broker {broker} had no answer for request.timeout.ms: it asks another broker.{}",
                    self.client(client),
                    self.sender()
                );
            }
        }
        String::new()
    }

    /// A connection reset reaches a client or a follower.
    pub(super) fn reset(&self, to: Node, from: u32) -> String {
        for e in self.events {
            match *e {
                Event::ConnectionReset { client, broker, requests, refused: true } => {
                    return format!(
                        "{}: its kernel refuses {}'s new connection, so {} never sent (NETWORK_EXCEPTION, not counted against retries); it wants new metadata.{}{}",
                        self.refusing(broker),
                        self.client(client),
                        if requests == 1 { "the request was" } else { "the requests were" },
                        self.sender(),
                        self.consumer_next()
                    )
                }
                // The broker closed an acks=0 producer's connection (`refuse_produce`).
                Event::ConnectionReset { client: client @ Node::Producer(p), broker, requests: 0, .. }
                    if self.sim.broker(broker).alive && self.sim.producers[p].settings.acks == Acks::Zero =>
                {
                    return format!(
                        "Broker {broker} has closed {}'s connection: it wants new metadata.{}{}",
                        self.client(client),
                        self.sender(),
                        self.consumer_next()
                    )
                }
                Event::ConnectionReset { client, broker, requests, .. } => {
                    return format!(
                        "Broker {broker}'s kernel resets {}'s connection: {requests} request{} on it fail{} at once (NETWORK_EXCEPTION); it wants new metadata.{}{}",
                        self.client(client),
                        plural(requests),
                        if requests == 1 { "s" } else { "" },
                        self.sender(),
                        self.consumer_next()
                    )
                }
                Event::FollowerConnectionReset { follower, leader } if self.sim.broker(leader).alive => {
                    return format!(
                        "{}: its kernel refuses follower {follower}'s connection, so the Fetch fails at once with a network error, not an answer from the broker, and follower {follower} tries again after replica.fetch.backoff.ms ({} ms).",
                        self.refusing(leader),
                        self.config().replica_fetch_backoff_ms
                    )
                }
                Event::FollowerConnectionReset { follower, leader } => {
                    return format!(
                        "Leader {leader}'s kernel resets follower {follower}'s connection: its Fetch fails at once, and it tries again after replica.fetch.backoff.ms ({} ms).",
                        self.config().replica_fetch_backoff_ms
                    )
                }
                Event::ResetIgnored { .. } => return format!("Broker {from} resets a connection {} was not waiting on.", self.node(to)),
                _ => {}
            }
        }
        String::new()
    }

    /// A connection attempt given up (`sim/connect.rs`): who gave it up, after how long,
    /// and what its client does next.
    pub(super) fn connection_given_up(&self) -> String {
        let Some((client, broker, after_ms, failures, by_kernel)) = self.events.iter().find_map(|e| match *e {
            Event::ConnectionAttemptGivenUp { client, broker, after_ms, failures, by_kernel } => {
                Some((client, broker, after_ms, failures, by_kernel))
            }
            _ => None,
        }) else {
            return String::new();
        };
        let whose = match client {
            Node::Broker(id) => format!("Follower {id}'s new connection to leader {broker}"),
            Node::Producer(p) => format!("Producer {}'s new connection to broker {broker}", self.producer(p)),
            Node::Consumer(c) => format!("Consumer {}'s new connection to broker {broker}", self.consumer(c)),
            other => format!("{}'s new connection to broker {broker}", self.node(other)),
        };
        let who = if by_kernel {
            format!(
                "{whose} has had no answer for {after_ms} ms: the kernel gives the handshake up after its 11th SYN (tcp_syn_retries; before Kafka 2.7 the client sets no limit of its own)"
            )
        } else {
            let nominal = (crate::sim::connect::SETUP_TIMEOUT_MS << failures.min(2)).min(crate::sim::connect::SETUP_TIMEOUT_MAX_MS);
            format!(
                "{whose} has had no answer for {after_ms} ms: the client gives the attempt up (socket.connection.setup.timeout.ms, {nominal} ms ± 20 % for {}, KIP-601) and closes the socket",
                if failures == 0 { "a first attempt".to_string() } else { format!("attempt {} in a row", failures + 1) }
            )
        };
        let next = self.events.iter().find_map(|e| match *e {
            Event::ConnectionReset { client: Node::Producer(_), requests, .. } => Some(format!(
                "; {} waiting on it {} never sent (NETWORK_EXCEPTION, not counted against retries). It wants new metadata and connects again after its backoff.{}",
                if requests == 1 { "the request" } else { "the requests" },
                if requests == 1 { "was" } else { "were" },
                self.sender()
            )),
            Event::ConnectionReset { requests, .. } => Some(format!(
                "; {} fails with a network error and it connects again after its backoff.{}",
                if requests == 0 { "nothing was waiting on it, so nothing" } else { "the fetch waiting on it" },
                self.consumer_next()
            )),
            Event::FollowerConnectionReset { .. } => Some(format!(
                "; the fetcher's wait for the connection fails (`awaitReady`), and it tries again after replica.fetch.backoff.ms ({} ms) on a new connection.",
                self.config().replica_fetch_backoff_ms
            )),
            _ => None,
        });
        format!("{who}{}", next.unwrap_or_else(|| ".".to_string()))
    }

    /// Why a broker refuses a connection: it is down, or (KRaft) a new process whose
    /// listeners open only once the controller has unfenced it (`listeners_closed`).
    fn refusing(&self, broker: u32) -> String {
        if self.sim.broker(broker).alive {
            format!("Broker {broker} is starting and has not opened its listeners yet (a new process opens them once the controller has unfenced it)")
        } else {
            format!("Broker {broker} is down")
        }
    }

    /// What a consumer does next after a metadata change or a reset.
    fn consumer_next(&self) -> String {
        for e in self.events {
            match *e {
                Event::ConsumerValidates { consumer, broker, epoch, msg } => {
                    return format!(
                        " The leader epoch changed, so {} first asks leader {broker} where epoch {epoch} (that of its last record) ends: KIP-320's validation.{}",
                        self.consumer(consumer),
                        self.note(Some(msg))
                    )
                }
                Event::ConsumerFetchSent { consumer, broker, offset, msg } => {
                    return format!(" {} fetches from broker {broker} at {offset}.{}", self.consumer(consumer), self.note(Some(msg)))
                }
                Event::ConsumerFetchFailed { consumer, .. } => {
                    return format!(" {} backs off retry.backoff.ms ({} ms).", self.consumer(consumer), self.sim.consumers[consumer].settings.retry_backoff_ms)
                }
                _ => {}
            }
        }
        String::new()
    }

    /// The leader's answer to a consumer's OffsetsForLeaderEpoch (KIP-320).
    pub(super) fn consumer_validation(&self) -> String {
        for e in self.events {
            match *e {
                Event::ConsumerResponseIgnored { consumer } => return format!("{} ignores an answer it no longer waits for.", self.consumer(consumer)),
                Event::ConsumerFetchFailed { consumer, error } => {
                    return format!("{}'s validation fails with {}; it refreshes its metadata and retries.", self.consumer(consumer), error.name(self.sim.scenario.preset))
                }
                Event::ConsumerValidated { consumer, position } => {
                    return format!(
                        "{}'s position {position} is still on the leader's log: validated.{}",
                        self.consumer(consumer),
                        self.consumer_next()
                    )
                }
                Event::ConsumerTruncationDetected { consumer, end, position, stopped: false } => {
                    return format!(
                        "The leader's log ends that epoch at {end}, below {}'s position {position}: the log was truncated under it. KIP-320: it detects the truncation and moves back to {end}, the first offset known to diverge, instead of reading on from an offset the new leader filled with other records.{}",
                        self.consumer(consumer),
                        self.consumer_next()
                    )
                }
                Event::ConsumerTruncationDetected { consumer, end, position, stopped: true } => {
                    return format!(
                        "The leader's log ends that epoch at {end}, below {}'s position {position}: truncation detected, and with auto.offset.reset=none it stops with LogTruncationException.",
                        self.consumer(consumer)
                    )
                }
                _ => {}
            }
        }
        String::new()
    }

    /// A broker serving a consumer's fetch: answered, or parked.
    pub(super) fn consumer_served(&self) -> String {
        for e in self.events {
            match *e {
                Event::ConsumerFetchAnswered { broker: id, consumer, leader, offset, records: n, hw, error, why, msg } => {
                    let c = self.consumer(consumer);
                    let (role, lower) = if leader { ("Leader", "leader") } else { ("Follower", "follower") };
                    let text = match why {
                        Served::NotLeader => match error {
                            Some(e @ KafkaError::UnknownTopicOrPartition) => format!(
                                "Broker {id} has had no LeaderAndIsr since it started: it knows nothing of the partition and answers {c}'s fetch with {}.",
                                e.name(self.sim.scenario.preset)
                            ),
                            _ => format!(
                                "Broker {id} does not lead and is not {c}'s preferred replica: {}.",
                                KafkaError::NotLeaderOrFollower.name(self.sim.scenario.preset)
                            ),
                        },
                        Served::Redirect { to, in_isr: true } => format!(
                            "Leader {id} tells {c} to read from broker {to}, its preferred read replica, and returns no records (KIP-392)."
                        ),
                        Served::Redirect { to, in_isr: false } => format!(
                            "Leader {id} tells {c} to read from broker {to}, its preferred read replica, although {to} is out of the ISR and lags: before 3.3.2 and 3.4.0 (KAFKA-14372) the leader names any replica that has the offset."
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
                        Served::FencedEpoch { leader_epoch } => {
                            format!("{c}'s fetch carries an older leader epoch than broker {id}'s ({leader_epoch}): FENCED_LEADER_EPOCH (KIP-320).")
                        }
                        Served::UnknownEpoch { leader_epoch } => {
                            format!("{c}'s fetch carries a newer leader epoch than broker {id} knows ({leader_epoch}): UNKNOWN_LEADER_EPOCH (KIP-320).")
                        }
                    };
                    return format!("{text}{}", self.note(Some(msg)));
                }
                Event::ConsumerFetchParked { broker: id, consumer, offset, wait, redirect: Some(to), .. } => {
                    return format!(
                        "Leader {id} names broker {to} as {}'s preferred read replica for offset {offset}, but before 3.2 (KAFKA-13767) that answer has no records and waits in the purgatory until fetch.max.wait.ms ({wait} ms): nothing else ends the wait.",
                        self.consumer(consumer)
                    );
                }
                Event::ConsumerFetchParked { broker: id, consumer, leader, offset, hw, wait, above, .. } => {
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
                    let replica = match self.sim.consumers[consumer].preferred {
                        Some((r, _)) if self.sim.behavior.fetch_error_forgets_preferred_replica => {
                            format!("it keeps broker {r} as its preferred read replica (an UNKNOWN_LEADER_EPOCH forgets nothing)")
                        }
                        Some((r, _)) => format!("it keeps broker {r} as its preferred read replica (before 3.3.2, KAFKA-14379)"),
                        None => "it forgets any preferred replica".to_string(),
                    };
                    return format!(
                        "{}'s fetch fails with {}; {replica}, refreshes its metadata and retries in {} ms.{}",
                        self.consumer(consumer),
                        error.name(self.sim.scenario.preset),
                        self.sim.consumers[consumer].settings.retry_backoff_ms,
                        self.sender()
                    );
                }
                Event::ConsumerStopped { consumer, error } => {
                    return format!(
                        "{} gets {} and, with auto.offset.reset=none, stops.",
                        self.consumer(consumer),
                        error.name(self.sim.scenario.preset)
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
                Event::ConsumerRetries { consumer, after_backoff, unsent } => {
                    let c = self.consumer(consumer);
                    head = if after_backoff {
                        format!("{c} retries.")
                    } else if unsent {
                        format!("{c}'s request, never sent (its connection is still being made), expires after request.timeout.ms; the connection attempt goes on, and the next request waits on it.")
                    } else {
                        format!("{c}'s fetch has had no answer for request.timeout.ms: it closes the connection, wants new metadata and sends another.")
                    };
                }
                Event::ConsumerFetchSent { broker, offset, msg, .. } => {
                    return format!("{head} Fetch at {offset} to broker {broker}.{}", self.note(Some(msg)))
                }
                Event::ConsumerWaitsForLeader { consumer } => {
                    return format!(
                        "{head} It knows no leader yet: it asks for metadata and waits {} ms.{}",
                        self.sim.consumers[consumer].settings.retry_backoff_ms,
                        self.sender()
                    )
                }
                Event::ConsumerValidates { .. } => return format!("{head}{}", self.consumer_next()),
                _ => {}
            }
        }
        head
    }
}
