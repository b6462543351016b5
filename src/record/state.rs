//! The step record's state part: partition, replicas, messages in flight,
//! clients and violations, read from the simulation as it is after the step.

use super::event::{body_type, event_record, ids_value};
use super::*;
use crate::sim::network::retransmission_at;
use crate::sim::{Body, ConsumerFetch, ConsumerFetchResponse, Msg, Node, Role, Sim};

/// Keeps the last `tail` items of a long list (all of them when `tail` is None).
fn tail_of<T>(items: impl ExactSizeIterator<Item = T>, tail: Option<usize>) -> impl Iterator<Item = T> {
    let skip = tail.map_or(0, |t| items.len().saturating_sub(t));
    items.skip(skip)
}

impl Sim {
    /// The step record of the state as it is now (complete: whole logs).
    pub fn record(&self) -> StepRecord {
        self.record_with_tail(None)
    }

    /// The lighter form for long runs: only the last `tail` entries of each log and
    /// of each producer's and consumer's record lists (`log_tail` says so).
    pub fn record_with_tail(&self, tail: Option<usize>) -> StepRecord {
        let c = &self.controller;
        let maximal_isr = c.leader.and_then(|l| self.broker(l).lead.as_ref()).map_or_else(|| c.isr.to_vec(), |ls| ls.maximal_isr());
        let maximal_isr = crate::sim::isr_list::sorted(&maximal_isr);
        let under_min_isr = c.leader.filter(|&l| self.under_min_isr(l)).map(|_| self.effective_min_isr());
        StepRecord {
            step: self.step,
            time_ms: self.now,
            event: event_record(self),
            text: crate::narrate::text(self),
            partition: PartitionRecord {
                leader: c.leader,
                leader_epoch: c.leader_epoch,
                isr: crate::sim::isr_list::sorted(&c.isr),
                partition_epoch: c.partition_epoch,
                maximal_isr,
                cut_links: self.net.cut_links().into_iter().map(|(a, b)| (self.node_name(a), self.node_name(b))).collect(),
                cut_channels: self
                    .net
                    .cut_channels()
                    .into_iter()
                    .map(|(a, b, channel)| crate::record::ChannelCut { from: self.node_name(a), to: self.node_name(b), channel })
                    .collect(),
                elr: self.behavior.eligible_leader_replicas.then(|| c.elr.to_vec()),
                last_known_elr: self.behavior.eligible_leader_replicas.then(|| c.last_known_elr.to_vec()),
                under_min_isr,
                hw_held: under_min_isr.and(self.behavior.hw_held_under_min_isr.then_some(true)),
            },
            replicas: self.brokers.iter().map(|b| self.replica_record(b.id, tail)).collect(),
            in_flight: self.in_flight.values().map(|(m, _)| self.in_flight_record(m)).collect(),
            producers: self
                .producers
                .iter()
                .enumerate()
                .map(|(i, p)| ProducerRecord {
                    id: self.scenario.producers[i].id.clone(),
                    acks: p.settings.acks,
                    acked: tail_of(p.acked.iter_exact(), tail).map(|r| self.record_name(*r)).collect(),
                    failed: tail_of(p.failed.iter_exact(), tail).map(|r| self.record_name(*r)).collect(),
                    acked_count: tail.map(|_| p.acked.iter_exact().len() as u64),
                    failed_count: tail.map(|_| p.failed.iter_exact().len() as u64),
                    pending: p.pending.iter().map(|r| self.record_name(*r)).collect(),
                    idempotent: p.settings.idempotent,
                    leader: p.meta.leader,
                    leader_epoch: p.meta.leader_epoch,
                    retries: p.retries,
                    batches: p
                        .batches
                        .iter()
                        .map(|b| BatchRecord {
                            records: b.ids.iter().map(|r| self.record_name(*r)).collect(),
                            state: if b.request.is_some() {
                                "in-flight"
                            } else if b.retry_at > self.now {
                                "backoff"
                            } else {
                                "queued"
                            },
                            attempts: b.attempts,
                            retry_ms: (b.request.is_none() && b.attempts > 0).then_some(b.retry_at),
                            error: b.last_error.map(|e| e.name(self.scenario.preset)),
                        })
                        .collect(),
                })
                .collect(),
            consumers: self
                .consumers
                .iter()
                .map(|c| ConsumerRecord {
                    id: c.spec.id.clone(),
                    fetch_from: c.spec.fetch_from,
                    position: c.position,
                    records_read: c.records_read,
                    read: tail_of(c.read.iter_exact(), tail).map(|(_, r)| self.record_name(*r)).collect(),
                    leader: c.meta.leader,
                    preferred_read_replica: c.preferred.filter(|p| p.1 > self.now).map(|p| p.0),
                    state: match c.fetch {
                        _ if c.stopped.is_some() => "stopped",
                        Some(ConsumerFetch::Validating { .. }) => "validating",
                        Some(ConsumerFetch::Backoff { .. }) => "backoff",
                        _ => "fetching",
                    },
                })
                .collect(),
            controller: ControllerRecord {
                metadata_offset: c.metadata_offset,
                registrations: c
                    .registrations
                    .iter()
                    .enumerate()
                    .map(|(b, r)| RegistrationRecord {
                        broker: b as u32,
                        broker_epoch: r.broker_epoch,
                        fenced: r.fenced,
                        session_expires_ms: r.session_deadline,
                    })
                    .collect(),
                next_fence_check_ms: c.check.map(|(_, at)| at).filter(|_| !self.zookeeper()),
                zookeeper: self.zookeeper().then(|| {
                    c.zookeeper
                        .iter()
                        .enumerate()
                        .map(|(b, s)| super::ZkSessionRecord {
                            broker: b as u32,
                            incarnation: s.incarnation,
                            session_expires_ms: s.deadline,
                        })
                        .collect()
                }),
                broker_id: self.zookeeper_controller_id(),
            },
            violations: self.invariants.new_violations.clone(),
            lost: self
                .invariants
                .losses
                .iter()
                .map(|l| LossRecord {
                    step: l.step,
                    invariant: l.invariant,
                    id: self.record_name(l.id),
                    offset: l.offset,
                    text: l.text.clone(),
                    allowed: l.allowed,
                })
                .collect(),
            kafka_log: crate::kafka_log::lines(self),
            log_tail: tail,
        }
    }

    fn replica_record(&self, id: u32, tail: Option<usize>) -> ReplicaRecord {
        let b = self.broker(id);
        let from = tail.map_or(0, |t| b.log.leo().saturating_sub(t as u64));
        let log = b.log.entries_from(from).map(|(offset, e)| LogRecord { offset, epoch: e.epoch, id: self.record_name(e.id) }).collect();
        let followers = b.lead.as_ref().map(|ls| {
            ls.followers
                .iter()
                .map(|(&f, v)| FollowerRecord {
                    broker: f,
                    fetch_offset: v.leo,
                    last_caught_up_ms: v.last_caught_up_ms,
                    in_isr: ls.isr.contains(&f),
                })
                .collect()
        });
        let mut parked: Vec<ParkedRecord> = Vec::new();
        if let Some(ls) = &b.lead {
            for p in &ls.parked_fetches {
                parked.push(ParkedRecord {
                    kind: "fetch",
                    from: NodeName::Broker(p.follower),
                    offset: p.req.fetch_offset,
                    expire_ms: p.expire_ms,
                });
            }
            for d in &ls.delayed_produces {
                parked.push(ParkedRecord {
                    kind: "produce",
                    from: self.node_name(Node::Producer(d.producer)),
                    offset: d.required_offset,
                    expire_ms: d.expire_ms,
                });
            }
        }
        for p in &b.parked_consumers {
            parked.push(ParkedRecord {
                kind: "consumer_fetch",
                from: self.node_name(Node::Consumer(p.consumer)),
                offset: p.offset,
                expire_ms: p.expire_ms,
            });
        }
        let role = if !b.alive {
            "offline"
        } else if b.role == Role::Leader && b.lead.is_some() {
            "leader"
        } else {
            "follower"
        };
        ReplicaRecord {
            broker: id,
            alive: b.alive,
            role,
            leader_epoch: b.leader_epoch,
            log_start_offset: b.log.start_offset,
            leo: b.log.leo(),
            hw: b.hw,
            log,
            // No fencing in the ZooKeeper era: a broker is live or dead to the controller.
            fenced: !self.zookeeper() && self.controller.fenced.contains(&id),
            state: if b.alive { b.lifecycle.name() } else { "offline" },
            incarnation: b.incarnation,
            hw_checkpoint: b.hw_checkpoint.1,
            epoch_cache: b.log.epochs().to_vec(),
            followers,
            parked,
            // A ghost stays until the same record stands at its offset again.
            lost: b
                .ghosts
                .iter()
                .filter(|g| b.log.get(g.offset).map(|e| e.id) != Some(g.id))
                .map(|g| GhostRecord { offset: g.offset, epoch: g.epoch, id: self.record_name(g.id), step: g.step })
                .collect(),
        }
    }

    fn in_flight_record(&self, m: &Msg) -> InFlightRecord {
        let mut r = InFlightRecord {
            id: m.id,
            kind: body_type(&m.body),
            from: self.node_name(m.from),
            to: self.node_name(m.to),
            sent_ms: m.sent_ms,
            arrive_ms: match m.held {
                Some(h) => retransmission_at(h.since, h.connect, self.now + 1) + self.net.latency(m.from, m.to),
                None => m.arrive_ms,
            },
            fetch_offset: None,
            last_fetched_epoch: None,
            offset: None,
            records: None,
            first_offset: None,
            acks: None,
            hw: None,
            error: None,
            diverging_epoch: None,
            isr: None,
            leader: None,
            leader_epoch: None,
            epoch: None,
            end_offset: None,
            duplicate: None,
            fenced: None,
            broker_epoch: None,
            held: m.held.is_some(),
            resent_ms: m.resent_ms,
            label: String::new(),
        };
        match &m.body {
            Body::Fetch(f) => {
                r.fetch_offset = Some(f.fetch_offset);
                r.last_fetched_epoch = f.last_fetched_epoch;
                r.leader_epoch = Some(f.current_leader_epoch);
            }
            Body::FetchResponse(f) => {
                r.records = Some(Value::UInt(f.records.len() as u64));
                r.first_offset = f.records.first().map(|(o, _)| *o);
                r.hw = Some(f.hw);
                r.error = f.error.map(|e| e.name(self.scenario.preset));
                r.diverging_epoch = f.diverging_epoch.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
            }
            Body::Produce { ids, acks, .. } => {
                r.records = Some(ids_value(self, ids.iter().copied()));
                r.acks = Some(*acks);
            }
            Body::ProduceResponse { ids, error, current_leader, duplicate, .. } => {
                r.records = Some(ids_value(self, ids.iter().copied()));
                r.error = error.map(|e| e.name(self.scenario.preset));
                r.leader = current_leader.map(|(l, _)| Some(l));
                r.duplicate = duplicate.then_some(true);
            }
            Body::ConsumerFetch { offset, leader_epoch } => {
                r.offset = Some(*offset);
                r.leader_epoch = Some(*leader_epoch);
            }
            Body::ConsumerFetchResponse(ConsumerFetchResponse { offset, records, hw, error, .. }) => {
                r.offset = Some(*offset);
                r.records = Some(ids_value(self, records.iter().filter_map(|(_, e)| e.map(|e| e.id))));
                r.first_offset = records.first().map(|(o, _)| *o);
                r.hw = Some(*hw);
                r.error = error.map(|e| e.name(self.scenario.preset));
            }
            Body::AlterPartition { isr, leader_epoch, .. } => {
                r.isr = Some(crate::sim::isr_list::sorted(isr));
                r.leader_epoch = Some(*leader_epoch);
            }
            Body::AlterPartitionResponse { isr, error, .. } => {
                r.isr = Some(crate::sim::isr_list::sorted(isr));
                r.error = error.map(|e| e.name());
            }
            Body::LeaderAndIsr(meta) | Body::MetadataFetchResponse { metadata: Some(meta), .. } => {
                r.leader = Some(meta.leader);
                r.leader_epoch = Some(meta.leader_epoch);
                r.isr = Some(crate::sim::isr_list::sorted(&meta.isr));
            }
            Body::MetadataFetchResponse { metadata: None, .. } => {}
            Body::MetadataFetch { offset } => r.fetch_offset = Some(*offset),
            Body::OffsetsForLeaderEpoch { epoch, .. } => r.epoch = Some(*epoch),
            Body::OffsetsForLeaderEpochResponse { requested, answer, error, .. } => {
                r.epoch = Some(*requested);
                r.end_offset = answer.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
                r.error = error.map(|e| e.name(self.scenario.preset));
            }
            Body::BrokerRegistration { .. } | Body::MetadataRequest | Body::Reset { .. } => {}
            Body::ZkPing { .. }
            | Body::ZkRegister { .. }
            | Body::ZkRegistered
            | Body::ZkNodeExists
            | Body::ZkSessionExpired
            | Body::ZkWatch { .. } => {}
            Body::BrokerRegistrationResponse { broker_epoch, .. } => {
                r.broker_epoch = *broker_epoch;
                r.error = broker_epoch.is_none().then_some("DUPLICATE_BROKER_REGISTRATION");
            }
            Body::BrokerHeartbeat { broker_epoch, .. } => r.broker_epoch = Some(*broker_epoch),
            Body::BrokerHeartbeatResponse { fenced, metadata, error } => {
                r.fenced = Some(*fenced);
                r.error = error.map(|e| e.name(self.scenario.preset));
                if let Some(m) = metadata {
                    r.leader = Some(m.leader);
                    r.leader_epoch = Some(m.leader_epoch);
                    r.isr = Some(crate::sim::isr_list::sorted(&m.isr));
                }
            }
            Body::MetadataResponse { leader, leader_epoch, .. } => {
                r.leader = Some(*leader);
                r.leader_epoch = Some(*leader_epoch);
            }
        }
        r.label = super::message_label(&r);
        r
    }
}
