//! Sentences for the leader's rules: a follower's Fetch, a produce, the ISR
//! check and the controller's answer to AlterPartition.

use super::{plural, set_str, Narrator};
use crate::scenario::{Acks, ResponseHw};
use crate::sim::event::{Answered, HwCause, Rejection};
use crate::sim::log::RecordId;
use crate::sim::{Event, FetchRequest, KafkaError};

impl Narrator<'_> {
    /// A follower's Fetch at the leader.
    pub(super) fn fetch_request(&self, req: &FetchRequest) -> String {
        let follower = req.replica;
        let mut known = String::new();
        let mut hw_text = String::new();
        let mut expand = String::new();
        let mut rest = String::new();
        for (i, e) in self.events.iter().enumerate() {
            match *e {
                Event::FetchRejected { leader, error, why, msg, .. } => {
                    return format!("{}{}", self.rejection(leader, follower, req, error, why), self.note(Some(msg)));
                }
                Event::DivergingAnswered { leader, epoch, end_offset, msg, .. } => {
                    let last = req.last_fetched_epoch.unwrap_or(-1);
                    return format!(
                        "Follower {follower} fetches at {} having last fetched epoch {last}, but on leader {leader} epoch {last} ends at {end_offset}: the logs diverge. The leader answers at once with diverging epoch ({epoch}, {end_offset}) and leaves the follower's state alone.{}",
                        req.fetch_offset,
                        self.note(Some(msg))
                    );
                }
                Event::FollowerFetched { leader, previous, fetch_offset, .. } => {
                    known = if previous == Some(fetch_offset) {
                        format!("Leader {leader} hears again that follower {follower} is at {fetch_offset}")
                    } else {
                        format!("Leader {leader} learns follower {follower} is at {fetch_offset}")
                    };
                }
                Event::IsrExpanded { leader, before, after, request, .. } => {
                    let start = self.sim.broker(leader).lead.as_ref().map_or(0, |ls| ls.epoch_start_offset);
                    let fetched = self.events.iter().find_map(|e| match *e {
                        Event::FollowerFetched { fetch_offset, .. } => Some(fetch_offset),
                        _ => None,
                    });
                    let short = fetched.filter(|&f| f < start);
                    expand = match (request, short) {
                        (None, Some(leo)) => format!(
                            " Follower {follower}'s LEO {leo} has reached the HW, which is enough to rejoin before 2.0.1 (KAFKA-7128), though leader {leader}'s epoch starts at {start}: the ISR grows {} → {} with a follower that lacks offsets {leo} to {}.",
                            set_str(before.set().iter()),
                            set_str(after.set().iter()),
                            start - 1
                        ),
                        (None, None) => format!(" Follower {follower} has caught up: the ISR grows {} → {}.", set_str(before.set().iter()), set_str(after.set().iter())),
                        (Some(m), _) => format!(
                            " Follower {follower} has caught up: leader {leader} asks the controller to make the ISR {} (AlterPartition) and counts it in the HW meanwhile (maximal ISR).{}",
                            set_str(after.set().iter()),
                            self.note(Some(m))
                        ),
                    };
                }
                Event::IsrWriteConflict { leader, cached, current, .. } => {
                    expand = format!(
                        " Follower {follower} has caught up, but leader {leader}'s write of the larger ISR to ZooKeeper fails: the partition's state has changed since it last heard (zkVersion {cached}, now {current}). The ISR stays as it was."
                    );
                }
                Event::LeaderHwMoved { from, to, cause: HwCause::Fetch, .. } => {
                    hw_text = format!("; HW {from} → {to}.");
                    let end = self.events.iter().position(|e| matches!(e, Event::FetchAnswered { .. } | Event::FetchParked { .. }));
                    rest = self.purgatory(&self.events[i + 1..end.unwrap_or(self.events.len())]);
                }
                Event::HwStays { hw, held: true, .. } => {
                    hw_text = format!("; HW stays {hw}: the ISR is under min.insync.replicas ({}).", self.config().min_insync_replicas);
                }
                Event::HwStays { hw, .. } => hw_text = format!("; HW stays {hw}."),
                Event::FetchAnswered { fetch_offset, records, hw_sent, hw, why, msg, .. } => {
                    let reason = match why {
                        Answered::NoLongPoll | Answered::Data => "",
                        Answered::NoWait => " (replica.fetch.wait.max.ms is 0)",
                        Answered::MinBytesZero => " (replica.fetch.min.bytes is 0)",
                        Answered::StaleHw => " because the HW it last sent this follower is stale (KIP-392, 2.4–2.5)",
                        Answered::CaseH => {
                            " (parked, and released at once because the HW moved past what this follower last heard: DelayedFetch Case H, 2.4–2.5)"
                        }
                    };
                    let what = if records == 0 {
                        "nothing new".to_string()
                    } else {
                        format!("{records} record{} from {fetch_offset}", plural(records))
                    };
                    let which_hw = match (self.sim.behavior.response_hw, hw_sent == hw) {
                        (ResponseHw::BeforeFetch, false) => format!("HW {hw_sent}, the value from before this fetch moved it"),
                        _ => format!("HW {hw_sent}"),
                    };
                    rest.push_str(&format!(" It answers at once{reason}: {what}, {which_hw}.{}", self.note(Some(msg))));
                }
                Event::FetchParked { wait, expire_ms, .. } => {
                    rest.push_str(&format!(
                        " Nothing new to send: the fetch waits up to {wait} ms (until {expire_ms} ms) for new records."
                    ));
                }
                _ => {}
            }
        }
        format!("{known}{hw_text}{expand}{rest}")
    }

    fn rejection(&self, leader: u32, follower: u32, req: &FetchRequest, error: KafkaError, why: Rejection) -> String {
        match why {
            Rejection::NotLeader if error == KafkaError::UnknownTopicOrPartition => format!(
                "Broker {leader} has had no LeaderAndIsr since it started: it knows nothing of the partition and answers follower {follower}'s Fetch with UNKNOWN_TOPIC_OR_PARTITION."
            ),
            Rejection::NotLeader => format!(
                "Broker {leader} is not the leader; it answers follower {follower}'s Fetch with {}.",
                error.name(self.sim.scenario.preset)
            ),
            Rejection::FencedEpoch { leader_epoch } | Rejection::UnknownEpoch { leader_epoch } => {
                let why = if matches!(why, Rejection::FencedEpoch { .. }) {
                    "an older epoch: the follower has not yet learned of the new leader epoch"
                } else {
                    "a newer epoch than the leader knows: the leader has not yet learned of it"
                };
                format!(
                    "Leader {leader} (epoch {leader_epoch}) gets follower {follower}'s Fetch in epoch {}, {why}; it answers {} (KIP-320).",
                    req.current_leader_epoch,
                    error.name(self.sim.scenario.preset)
                )
            }
            Rejection::NoEpochEnd { epoch } => format!(
                "Leader {leader} cannot find the end of epoch {epoch} that follower {follower} last fetched; it answers OFFSET_OUT_OF_RANGE."
            ),
            Rejection::OutOfRange { start, leo } => format!(
                "Follower {follower} fetches at {}, outside leader {leader}'s log [{start}, {leo}): the leader answers OFFSET_OUT_OF_RANGE.",
                req.fetch_offset
            ),
        }
    }

    /// A produce request at the leader.
    pub(super) fn produce_request(&self, ids: &[RecordId]) -> String {
        let mut text = String::new();
        for (i, e) in self.events.iter().enumerate() {
            match *e {
                Event::ProduceRefused { broker, producer, error: KafkaError::NotEnoughReplicas, isr, min_isr, msg, .. } => {
                    return format!(
                        "Leader {broker} refuses {}'s acks=all write: the ISR {} has {} member{}, fewer than min.insync.replicas = {min_isr}. NOT_ENOUGH_REPLICAS; nothing is appended.{}",
                        self.producer(producer),
                        set_str(isr.iter()),
                        isr.len(),
                        plural(isr.len()),
                        self.note(Some(msg))
                    );
                }
                Event::ProduceRefused { broker, producer, error, closed: true, msg, .. } => {
                    return format!(
                        "Broker {broker} refuses {}'s acks=0 write with {}: nothing is appended, and as the producer expects no answer, the broker closes its connection instead (the producer notices the disconnection and asks for new metadata).{}",
                        self.producer(producer),
                        error.name(self.sim.scenario.preset),
                        self.note(Some(msg))
                    );
                }
                Event::ProduceRefused { broker, producer, error: KafkaError::NotLeaderOrFollower, named_leader, msg, .. } => {
                    let knows = match named_leader {
                        Some(l) => format!(" It names leader {l} in its answer (KIP-951)."),
                        None => String::new(),
                    };
                    return format!(
                        "Broker {broker} does not lead the partition: {}'s write gets {}.{knows}{}",
                        self.producer(producer),
                        KafkaError::NotLeaderOrFollower.name(self.sim.scenario.preset),
                        self.note(Some(msg))
                    );
                }
                Event::ProduceRefused { broker, producer, error: KafkaError::UnknownTopicOrPartition, msg, .. } => {
                    return format!(
                        "Broker {broker} has had no LeaderAndIsr since it started: it knows nothing of the partition, and {}'s write gets UNKNOWN_TOPIC_OR_PARTITION.{}",
                        self.producer(producer),
                        self.note(Some(msg))
                    );
                }
                Event::ProduceRefused { broker, producer, error: KafkaError::OutOfOrderSequenceNumber, msg, .. } => {
                    let kept = if self.sim.behavior.producer_state_keeps_5_batches { "its last 5 batches" } else { "only its last batch" };
                    return format!(
                        "Leader {broker} refuses {}'s write: OUT_OF_ORDER_SEQUENCE_NUMBER. The batch is neither the next of this idempotent producer's sequence nor one of the batches its producer state keeps ({kept}), so it cannot be answered as a retry; nothing is appended.{}",
                        self.producer(producer),
                        self.note(Some(msg))
                    );
                }
                Event::ProduceRefused { broker, producer, error, msg, .. } => {
                    return format!(
                        "Broker {broker} refuses {}'s write: {}.{}",
                        self.producer(producer),
                        error.name(self.sim.scenario.preset),
                        self.note(Some(msg))
                    );
                }
                Event::DuplicateBatch { leader, producer, first_n, count, last_offset } => {
                    let name = |n: u32| self.sim.record_name(RecordId { producer: producer as u16, n });
                    let what =
                        if count == 1 { name(first_n) } else { format!("{} … {}", name(first_n), name(first_n + count as u32 - 1)) };
                    text = format!(
                        "Leader {leader} already has {what} (up to offset {last_offset}): the producer is idempotent, and its producer state says this is a retry. Nothing is appended again."
                    );
                }
                Event::Appended { leader, producer, first_offset, count, leo, epoch, again } => {
                    text = if count == 1 {
                        format!(
                            "Leader {leader} appends {} at offset {first_offset} (LEO {leo}) in epoch {epoch}.",
                            self.sim.record_name(ids[0])
                        )
                    } else {
                        format!(
                            "Leader {leader} appends {}'s {count} records at offsets {first_offset}–{} (LEO {leo}) in epoch {epoch}.",
                            self.producer(producer),
                            leo - 1
                        )
                    };
                    if again {
                        text.push_str(&match self.sim.retry_cause(ids[0]) {
                            Some(error) => format!(
                                " It already had these records: {}'s earlier try was appended, then answered {}{}, so it sent them again; without enable.idempotence the leader cannot tell, so they are now in the log twice.",
                                self.producer(producer),
                                error.name(self.sim.scenario.preset),
                                after_append_why(error)
                            ),
                            None => " It already had these records: a retry after a lost answer, and without enable.idempotence the leader cannot tell, so they are now in the log twice.".to_string(),
                        });
                    }
                }
                Event::LeaderHwMoved { from, to, .. } => {
                    text.push_str(&format!(" No follower counts toward the HW, so it moves at once: HW {from} → {to}."));
                }
                Event::ProduceAnswer { acks, required_offset, msg, .. } => {
                    text.push_str(&match acks {
                        Acks::Zero => " acks=0: no answer is sent.".to_string(),
                        Acks::One => {
                            format!(" acks=1: the leader acknowledges now, before any follower has the records.{}", self.note(msg))
                        }
                        Acks::All if msg.is_some() => {
                            format!(
                                " acks=all: the HW has already reached {required_offset}, so the leader answers at once.{}",
                                self.note(msg)
                            )
                        }
                        Acks::All => format!(" acks=all: the answer waits until the HW reaches {required_offset}."),
                    });
                    text.push_str(&self.purgatory(&self.events[i + 1..]));
                    break;
                }
                _ => {}
            }
        }
        text
    }

    /// The leader's periodic ISR check.
    pub(super) fn isr_check(&self, leader: u32) -> String {
        let lag = self.sim.settings.replica_lag_time_max_ms;
        for e in self.events {
            match *e {
                Event::IsrCheckNotLeader { broker } => return format!("Broker {broker}'s ISR check finds it no longer leads."),
                Event::IsrWriteConflict { cached, current, .. } => return format!("Leader {leader} checks the ISR and would drop a lagging follower, but its write to ZooKeeper fails: the partition's state has changed since it last heard (zkVersion {cached}, now {current}; another leader may have been elected). The ISR stays as it was."),
                Event::IsrCheckPending { period, .. } => {
                    return format!("Leader {leader} checks the ISR, but an ISR change is still in flight; it checks again in {period} ms.")
                }
                Event::IsrCheckNoChange { isr, .. } => {
                    return format!(
                        "Leader {leader} checks the ISR {}: every member is caught up (its last Fetch was at the leader's LEO, or it was there within {lag} ms); no change.",
                        set_str(isr.iter())
                    )
                }
                Event::IsrShrunk { before, after, out, request, .. } => {
                    let ls = self.sim.broker(leader).lead.as_ref();
                    let lagging: Vec<String> = out
                        .iter()
                        .map(|f| match ls.and_then(|ls| ls.followers.get(&f)) {
                            None => String::new(),
                            Some(v) => format!(
                                "{f} (last caught up at {}, at offset {})",
                                v.last_caught_up_ms.map_or("never".into(), |t| format!("{t} ms")),
                                v.leo.map_or("unknown".into(), |o| o.to_string())
                            ),
                        })
                        .collect();
                    let has = if lagging.len() > 1 { "have" } else { "has" };
                    return match request {
                        None => format!(
                            "Leader {leader} checks the ISR: {} {has} not caught up for more than {lag} ms; the ISR shrinks {} → {}.{}",
                            lagging.join(", "),
                            set_str(before.set().iter()),
                            set_str(after.set().iter()),
                            self.hw_after_isr_change()
                        ),
                        Some(m) => format!(
                            "Leader {leader} checks the ISR: {} {has} not caught up for more than {lag} ms. It asks the controller to shrink the ISR to {} (AlterPartition); until that is committed, the HW still waits for the old ISR.{}",
                            lagging.join(", "),
                            set_str(after.set().iter()),
                            self.note(Some(m))
                        ),
                    };
                }
                _ => {}
            }
        }
        String::new()
    }

    /// The controller's answer to AlterPartition, at the leader.
    pub(super) fn alter_partition_response(&self) -> String {
        for e in self.events {
            match *e {
                Event::AlterPartitionIgnored { broker, leader_epoch } => {
                    return format!(
                        "Broker {broker} gets an AlterPartition answer for epoch {leader_epoch}, but it no longer leads in that epoch; ignored."
                    )
                }
                Event::AlterPartitionAnswerStale { leader, state_changed: true, .. } => {
                    return format!(
                        "Leader {leader} gets an answer to an ISR change it no longer has pending (new metadata or a newer proposal replaced it); ignored."
                    )
                }
                Event::AlterPartitionAnswerStale { leader, answered, held, .. } => {
                    return format!(
                        "Leader {leader} gets an AlterPartition answer at partition epoch {answered}, older than the {held} it holds; ignored."
                    )
                }
                Event::IsrChangeRefused { leader, error, .. } => {
                    return format!(
                        "The controller refuses leader {leader}'s ISR change with {}; {}",
                        error.name(),
                        if error.reverts() {
                            "the leader goes back to its committed ISR."
                        } else {
                            "the leader keeps the change pending until new metadata arrives."
                        }
                    )
                }
                Event::IsrApplied { leader, before, after, partition_epoch } => {
                    return format!(
                        "The controller has committed the ISR {} → {} (partition epoch {partition_epoch}); leader {leader} applies it.{}",
                        set_str(before.set().iter()),
                        set_str(after.set().iter()),
                        self.hw_after_isr_change()
                    )
                }
                _ => {}
            }
        }
        String::new()
    }
}

/// Why a write appended on the leader is answered with `error` rather than acknowledged.
pub(crate) fn after_append_why(error: crate::sim::msg::KafkaError) -> &'static str {
    match error {
        crate::sim::msg::KafkaError::NotEnoughReplicasAfterAppend => {
            " (the ISR fell below min.insync.replicas while it waited: appended, then reported unsafe)"
        }
        crate::sim::msg::KafkaError::RequestTimedOut => " (the ISR did not reach it before the request's timeout)",
        _ => "",
    }
}
