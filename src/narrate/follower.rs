//! Sentences for the follower's rules: a Fetch response, its fetcher's timers,
//! truncation and OffsetsForLeaderEpoch.

use super::{plural, Narrator};
use crate::scenario::Truncation;
use crate::sim::event::TruncationRule;
use crate::sim::{Event, FetchResponse, KafkaError};

impl Narrator<'_> {
    /// A Fetch response at the follower `id`, from `leader`.
    pub(super) fn fetch_response(&self, id: u32, leader: u32, resp: &FetchResponse) -> String {
        for (i, e) in self.events.iter().enumerate() {
            match *e {
                Event::FetchResponseIgnored { .. } => {
                    return format!("Broker {id} gets an answer from broker {leader} to a Fetch it no longer waits for; ignored.")
                }
                Event::FetchFailed { error, .. } => return self.fetch_failed(id, leader, error, resp),
                Event::Truncated { leo_before, to, rule: TruncationRule::DivergingEpoch, .. } => {
                    let (epoch, end) = resp.diverging_epoch.unwrap_or_default();
                    return format!(
                        "Follower {id} learns its log diverges from leader {leader}'s: epoch {epoch} ends at {end} on the leader. It truncates {leo_before} → {to} (the HW is not updated this round, KAFKA-14704) and fetches again at {to}.{}{}",
                        self.dropped(id),
                        self.fetch_note()
                    );
                }
                // The response is dropped: only the next Fetch is told.
                Event::StaleFetchResponse { .. } => return self.after_response(leader),
                Event::FollowerAppended { records: n, leo, leader_hw, hw_before, hw, .. } => {
                    let appended = if n == 0 {
                        "No records".to_string()
                    } else {
                        format!("Follower {id} appends {n} record{} (LEO {leo})", plural(n))
                    };
                    let hw_text = if hw == hw_before {
                        format!("its HW stays {hw}")
                    } else if leader_hw > leo {
                        format!("its HW {hw_before} → {hw} (the leader's HW {leader_hw} clamped to its own LEO)")
                    } else {
                        format!("its HW {hw_before} → {hw}")
                    };
                    let text = if n == 0 {
                        format!("{appended} in leader {leader}'s answer to follower {id}; it carries HW {leader_hw}, so {hw_text}.")
                    } else {
                        format!("{appended}; the response carries HW {leader_hw}, so {hw_text}.")
                    };
                    return format!("{text}{}{}", self.purgatory(&self.events[i + 1..]), self.after_response(leader));
                }
                _ => {}
            }
        }
        String::new()
    }

    /// The message of the Fetch this step sent.
    /// The records a truncation at this step removed from broker `id`'s log, by name,
    /// and how many of them had been acknowledged (lost here: `Partition.truncateTo`).
    fn dropped(&self, id: u32) -> String {
        let step = self.sim.step;
        let gone: Vec<_> = self.sim.broker(id).ghosts.iter().filter(|g| g.step == step).collect();
        if gone.is_empty() {
            return String::new();
        }
        let names: Vec<String> = gone.iter().map(|g| self.sim.record_name(g.id)).collect();
        let named = if names.len() > 4 { format!("{}, {} … {}", names[0], names[1], names[names.len() - 1]) } else { names.join(", ") };
        let acked = gone.iter().filter(|g| self.sim.invariants.losses.iter().any(|l| l.id == g.id)).count();
        let lost = match acked {
            0 => String::new(),
            n if n == gone.len() => format!(": all {n} had been acknowledged, and are lost here"),
            n => format!(": {n} of them had been acknowledged, and are lost here"),
        };
        format!(" It drops {} record{} ({named}){lost}.", gone.len(), plural(gone.len()))
    }

    fn fetch_note(&self) -> &'static str {
        let msg = self.events.iter().find_map(|e| match e {
            Event::FetchSent { msg, .. } => Some(*msg),
            _ => None,
        });
        self.note(msg.flatten())
    }

    /// The next Fetch at once, or (textbook, nothing new) a wait.
    fn after_response(&self, leader: u32) -> String {
        for e in self.events {
            match *e {
                Event::FetcherWaits { ms, .. } => return format!(" Nothing new, so it waits {ms} ms before polling again."),
                Event::FetchSent { fetch_offset, msg, .. } => {
                    return format!(" It sends the next Fetch at {fetch_offset} to leader {leader} right away.{}", self.note(msg))
                }
                _ => {}
            }
        }
        String::new()
    }

    fn fetch_failed(&self, id: u32, leader: u32, error: KafkaError, resp: &FetchResponse) -> String {
        match error {
            KafkaError::OffsetOutOfRange => {
                if let Some(&Event::Halted { leader_leo, leo, .. }) = self.events.iter().find(|e| matches!(e, Event::Halted { .. })) {
                    return format!(
                        "Follower {id} is told OFFSET_OUT_OF_RANGE: leader {leader}'s log ends at {leader_leo}, before its own ({leo}). Truncating could drop records it holds, and unclean.leader.election.enable is false, so broker {id} halts (up to 2.0: \"Exiting because log truncation is not allowed\"; KAFKA-7414 made it truncate from 2.1). It stops as if crashed; {}",
                        self.halt_detection(id)
                    );
                }
                let reset = self.events.iter().find_map(|e| match e {
                    Event::LogStartReset { start, .. } => Some(*start),
                    _ => None,
                });
                let leo = self.events.iter().find_map(|e| match e {
                    Event::Truncated { leo_before, .. } => Some(*leo_before),
                    _ => None,
                });
                match reset {
                    Some(start) => format!(
                        "Follower {id} is told OFFSET_OUT_OF_RANGE and starts over from the leader's log start {start}.{}",
                        self.fetch_note()
                    ),
                    None => format!(
                        "Follower {id} is told OFFSET_OUT_OF_RANGE: leader {leader}'s log ends at {}, before its own ({}). It truncates to {} and fetches again.{}",
                        resp.leader_leo,
                        leo.unwrap_or_default(),
                        resp.leader_leo,
                        self.fetch_note()
                    ),
                }
            }
            KafkaError::FencedLeaderEpoch => format!(
                "Follower {id} is told FENCED_LEADER_EPOCH by broker {leader}: its leader epoch is out of date. It stops fetching until new metadata arrives."
            ),
            _ => format!(
                "Follower {id} is told {} by broker {leader}; it tries again in replica.fetch.backoff.ms ({} ms).",
                error.name(self.sim.scenario.preset),
                self.config().replica_fetch_backoff_ms
            ),
        }
    }

    /// The fetcher's wait is over.
    pub(super) fn fetcher_retry(&self, id: u32) -> String {
        let leader = self.sim.broker(id).leader.unwrap_or_default();
        for e in self.events {
            match *e {
                Event::FetcherNoLeader { .. } => return format!("Broker {id}'s fetcher wakes up, but it has no leader to fetch from."),
                Event::FetchSent { fetch_offset, msg, .. } if self.sim.behavior.long_poll => {
                    return format!("Follower {id}'s backoff is over; it sends a Fetch at {fetch_offset} to leader {leader}.{}", self.note(msg))
                }
                Event::FetchSent { fetch_offset, msg, .. } => {
                    return format!(
                        "Follower {id} polls again after waiting {} ms (textbook: no long-poll, so an idle follower waits between fetches instead of spinning): Fetch at {fetch_offset} to leader {leader}.{}",
                        self.config().replica_fetch_wait_max_ms,
                        self.note(msg)
                    )
                }
                _ => {}
            }
        }
        format!("Follower {id} asks leader {leader} again where its epoch ends (OffsetsForLeaderEpoch).")
    }

    pub(super) fn fetch_request_timeout(&self, id: u32) -> String {
        format!(
            "Follower {id}'s request has had no answer in time (request.timeout.ms, {} ms; replica.socket.timeout.ms, {} ms, while its connection was not made): it closes the connection and tries again after replica.fetch.backoff.ms ({} ms).",
            self.config().broker_request_timeout_ms(),
            self.config().replica_socket_timeout_ms,
            self.config().replica_fetch_backoff_ms
        )
    }

    /// What becoming a follower does to its log, by the preset's truncation rule.
    pub(super) fn truncation_on_become_follower(&self) -> &'static str {
        match self.sim.behavior.truncation {
            Truncation::HighWatermark => " Its log ends at its HW, so HW truncation removes nothing.",
            Truncation::EpochRequest | Truncation::EpochRequestMultiRound => {
                " Before fetching it asks the leader where its last epoch ends (OffsetsForLeaderEpoch, KIP-101)."
            }
            Truncation::DivergingEpoch => {
                " It keeps its log and fetches from its LEO with its last fetched epoch; the leader will say if they diverge."
            }
        }
    }

    /// HW truncation on becoming a follower (≤0.10), if it cut anything.
    pub(super) fn hw_truncation(&self) -> Option<String> {
        self.events.iter().find_map(|e| match *e {
            Event::Truncated { leo_before, to, rule: TruncationRule::HighWatermark, .. } => {
                Some(format!(" It truncates its log to its own HW: {leo_before} → {to} (pre-KIP-101 rule)."))
            }
            _ => None,
        })
    }

    /// OffsetsForLeaderEpoch at the leader.
    pub(super) fn offsets_for_leader_epoch(&self) -> String {
        for e in self.events {
            if let Event::EpochEndAnswered { leader, requester, epoch, answer, error, msg } = *e {
                let note = self.note(Some(msg));
                let follower = match requester {
                    crate::sim::Node::Broker(b) => b.to_string(),
                    other => {
                        let who = self.node(other);
                        return match (answer, error) {
                            (_, Some(e)) => format!(
                                "Broker {leader} answers {who}'s OffsetsForLeaderEpoch with {}.{note}",
                                e.name(self.sim.scenario.preset)
                            ),
                            (None, None) => format!("Leader {leader} tells {who} it does not know where epoch {epoch} ends.{note}"),
                            (Some((e, o)), None) => {
                                format!("Leader {leader} tells {who}: asked about epoch {epoch}, its log says epoch {e} ends at {o}.{note}")
                            }
                        };
                    }
                };
                let v0 = self.sim.behavior.truncation == Truncation::EpochRequest;
                return match (answer, error) {
                    (_, Some(e)) => format!(
                        "Broker {leader} answers follower {follower}'s OffsetsForLeaderEpoch with {}.{note}",
                        e.name(self.sim.scenario.preset)
                    ),
                    (None, None) => format!("Leader {leader} does not know where epoch {epoch} ends (UNDEFINED).{note}"),
                    (Some((_, o)), None) if v0 => {
                        format!(
                            "Leader {leader} answers follower {follower}: epoch {epoch} ends at {o} in its log (v0: an offset only).{note}"
                        )
                    }
                    (Some((e, o)), None) => {
                        format!("Leader {leader} answers follower {follower}: asked about epoch {epoch}, its log says epoch {e} ends at {o}.{note}")
                    }
                };
            }
        }
        String::new()
    }

    /// The leader's answer to OffsetsForLeaderEpoch, at follower `id`.
    pub(super) fn offsets_for_leader_epoch_response(&self, id: u32) -> String {
        let mut what = String::new();
        for e in self.events {
            match *e {
                Event::EpochEndIgnored { .. } => {
                    return format!("Broker {id} gets an OffsetsForLeaderEpoch answer it no longer waits for; ignored.")
                }
                Event::EpochQueryFailed { error, .. } => {
                    return format!(
                        "Follower {id}'s OffsetsForLeaderEpoch fails with {}; it retries after a backoff.",
                        error.name(self.sim.scenario.preset)
                    )
                }
                Event::Truncated { leo_before, to, .. } => {
                    what = if to < leo_before {
                        format!("truncates {leo_before} → {to}")
                    } else {
                        format!("keeps its log (LEO {leo_before})")
                    };
                }
                Event::FetchSent { fetch_offset, msg, .. } => {
                    return format!("Follower {id} {what} and starts fetching at {fetch_offset}.{}", self.note(msg));
                }
                _ => {}
            }
        }
        let again = format!(
            "Follower {id} {what}: the leader's epoch is not in its cache, so it asks again about its own latest epoch (KIP-279's extra round)."
        );
        match self.events.iter().find_map(|e| match *e {
            Event::EpochQueryLoops { epoch, .. } => Some(epoch),
            _ => None,
        }) {
            Some(epoch) => format!(
                "{again} That is epoch {epoch} again, the one it just asked about: it led epoch {epoch} without writing in it, and truncating to its own log end changed nothing, not even the epoch cache (Log.truncateTo returned early at the log end). Every round from now on gets the same answer, and the follower never fetches: KAFKA-10706, fixed in 2.6.1 and 2.7.0; the kafka-2.8 preset has the fix, and from 2.8 the Fetch answer's diverging epoch replaces these rounds."
            ),
            None => again,
        }
    }
}
