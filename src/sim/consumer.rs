//! Consumers, reading from the leader or from a follower (KIP-392). A replica
//! serves only records below its own HW (`FetchIsolation.HIGH_WATERMARK`).
//! Kafka: `LocalLog.read`, `DelayedFetch`, `ReplicaManager.findPreferredReadReplica`,
//! the consumer's `FetchCollector`.

use super::leader::plural;
use super::log::Entry;
use super::{Body, Consumer, ConsumerFetchResponse, KafkaError, MsgHead, Node, ParkedConsumerFetch, Sim, Timer};
use crate::record::EventRecord;
use crate::scenario::{AboveHw, ConsumerSpec};

/// The consumer's retry.backoff.ms after an error.
const RETRY_BACKOFF_MS: u64 = 100;

impl Sim {
    pub(crate) fn add_consumer(&mut self, spec: ConsumerSpec) {
        let position = spec.position.unwrap_or(self.scenario.initial.log_end_offset);
        self.consumers.push(Consumer {
            spec,
            position,
            records_read: 0,
            read: super::pvec::PVec::new(),
            in_flight: None,
            use_leader: false,
        });
        let c = self.consumers.len() - 1;
        self.send_consumer_fetch(c);
    }

    /// Where the consumer's next fetch goes: its preferred follower, else the leader.
    fn consumer_target(&self, c: usize) -> Option<u32> {
        let consumer = &self.consumers[c];
        match consumer.spec.fetch_from {
            Some(f) if self.behavior.follower_fetching && !consumer.use_leader => Some(f),
            _ => self.controller.leader,
        }
    }

    fn send_consumer_fetch(&mut self, c: usize) -> Option<(u32, super::network::Sent)> {
        let timeout_ms = self.consumers[c].spec.request_timeout_ms;
        let Some(target) = self.consumer_target(c) else {
            let timer = self.set_timer(self.now + RETRY_BACKOFF_MS, Timer::ConsumerRequestTimeout { consumer: c });
            self.consumers[c].in_flight = Some((u32::MAX, 0, timer));
            return None;
        };
        let offset = self.consumers[c].position;
        let sent = self.send(Node::Consumer(c), Node::Broker(target), Body::ConsumerFetch { offset });
        let timer = self.set_timer(self.now + timeout_ms, Timer::ConsumerRequestTimeout { consumer: c });
        self.consumers[c].in_flight = Some((target, sent.id, timer));
        Some((target, sent))
    }

    /// A consumer fetch arrives at a broker.
    pub(crate) fn handle_consumer_fetch(&mut self, msg: &MsgHead, offset: u64) {
        let Node::Broker(id) = msg.to else { return };
        let Node::Consumer(c) = msg.from else { return };
        self.event = Some(EventRecord { offset: Some(offset), ..EventRecord::message("consumer_fetch_request", msg, self) });
        let cname = self.consumers[c].spec.id.clone();
        let is_leader = self.broker(id).lead.is_some();
        let preferred = self.consumers[c].spec.fetch_from.filter(|_| self.behavior.follower_fetching);
        if !is_leader && preferred != Some(id) {
            return self.answer_consumer(
                id,
                c,
                msg.id,
                offset,
                Vec::new(),
                Some(KafkaError::NotLeaderOrFollower),
                None,
                say!(self, "Broker {id} does not lead and is not {cname}'s preferred replica: NOT_LEADER_OR_FOLLOWER."),
            );
        }
        if is_leader {
            if let Some(f) = preferred.filter(|&f| f != id) {
                // `findPreferredReadReplica`: an ISR follower that has the offset.
                let ls = self.broker(id).lead.as_ref();
                let ok = ls
                    .is_some_and(|ls| ls.isr.contains(&f) && ls.followers.get(&f).and_then(|v| v.leo).is_some_and(|leo| leo >= offset))
                    && self.broker(f).alive;
                if ok {
                    self.consumers[c].use_leader = false;
                    return self.answer_consumer(
                        id,
                        c,
                        msg.id,
                        offset,
                        Vec::new(),
                        None,
                        Some(f),
                        say!(self, "Leader {id} tells {cname} to read from broker {f}, its preferred read replica, and returns no records (KIP-392)."),
                    );
                }
            }
        }
        self.serve_consumer(id, c, msg.id, offset, false);
    }

    /// `LocalLog.read` up to the HW: records below it at once; at the HW the fetch
    /// waits; above the HW (not above the LEO) it is answered empty or waits, by preset.
    fn serve_consumer(&mut self, id: u32, c: usize, request: u64, offset: u64, expired: bool) {
        let b = self.broker(id);
        let (hw, leo, start) = (b.hw, b.log.leo(), b.log.start_offset);
        let cname = self.consumers[c].spec.id.clone();
        let role = if b.lead.is_some() { "Leader" } else { "Follower" };
        if offset > leo || offset < start {
            return self.answer_consumer(
                id,
                c,
                request,
                offset,
                Vec::new(),
                Some(KafkaError::OffsetOutOfRange),
                None,
                say!(self, "{role} {id} has no offset {offset} (its log is [{start}, {leo})): OFFSET_OUT_OF_RANGE for {cname}."),
            );
        }
        if offset < hw {
            let per = self.scenario.record_bytes.max(1);
            let max = (1_048_576 / per).max(1);
            let end = hw.min(offset + max);
            let records: Vec<(u64, Option<Entry>)> = (offset..end).map(|o| (o, b.log.get(o))).collect();
            let n = records.len();
            return self.answer_consumer(
                id,
                c,
                request,
                offset,
                records,
                None,
                None,
                say!(self, "{role} {id} returns {n} record{} from {offset} to {cname}: everything below its HW {hw}.", plural(n)),
            );
        }
        let wait = self.consumers[c].spec.fetch_max_wait_ms;
        let above = offset > hw;
        let park = !expired && wait > 0 && (!above || self.behavior.consumer_fetch_above_hw == AboveHw::Park);
        if park {
            let expire_ms = self.now + wait;
            let timer = self.set_timer(expire_ms, Timer::ConsumerFetchExpiry { broker: id, consumer: c });
            self.broker_mut(id).parked_consumers.push(ParkedConsumerFetch { consumer: c, request, offset, expire_ms, timer });
            self.ev().outcome = Some("parked");
            self.text = say!(
                self,
                "{cname} asks {} {id} for offset {offset}, {} its HW {hw}: nothing it may read yet. The fetch waits up to fetch.max.wait.ms ({wait} ms) for the HW to move.",
                role.to_ascii_lowercase(),
                if above { "above" } else { "at" }
            );
            return;
        }
        let why = if expired {
            say!(
                self,
                "{cname}'s fetch at {offset} has waited fetch.max.wait.ms on {} {id}; it is answered with no records (HW {hw}).",
                role.to_ascii_lowercase()
            )
        } else if above {
            say!(self, "{cname} asks {} {id} for offset {offset}, above its HW {hw}: answered at once with no records (DelayedFetch Case F), so the consumer asks again.", role.to_ascii_lowercase())
        } else {
            say!(
                self,
                "{cname} asks {} {id} for offset {offset}, at its HW: nothing to read, and fetch.max.wait.ms is 0.",
                role.to_ascii_lowercase()
            )
        };
        self.answer_consumer(id, c, request, offset, Vec::new(), None, None, why);
    }

    #[allow(clippy::too_many_arguments)]
    fn answer_consumer(
        &mut self,
        id: u32,
        c: usize,
        request: u64,
        offset: u64,
        records: Vec<(u64, Option<Entry>)>,
        error: Option<KafkaError>,
        preferred: Option<u32>,
        text: String,
    ) {
        let hw = self.broker(id).hw;
        if self.event.as_ref().is_some_and(|e| e.outcome.is_none()) {
            self.ev().outcome = Some(if error.is_some() { "error" } else { "answered" });
        }
        let sent = self.send(
            Node::Broker(id),
            Node::Consumer(c),
            Body::ConsumerFetchResponse(ConsumerFetchResponse { request, offset, records, hw, error, preferred }),
        );
        self.text = say!(self, "{text}{}", sent.note());
    }

    /// Releases consumer fetches parked on `id` now that its HW moved
    /// (the leader in `tryCompleteDelayedRequests`; a follower since KAFKA-14334).
    pub(crate) fn complete_consumer_fetches(&mut self, id: u32) -> String {
        let hw = self.broker(id).hw;
        let ready: Vec<ParkedConsumerFetch> = self.broker(id).parked_consumers.iter().filter(|p| p.offset < hw).cloned().collect();
        if ready.is_empty() {
            return String::new();
        }
        let mut names = Vec::new();
        for p in ready {
            self.broker_mut(id).parked_consumers.retain(|q| q.request != p.request);
            self.cancel(p.timer);
            let log = &self.broker(id).log;
            let records: Vec<(u64, Option<Entry>)> = (p.offset..hw).map(|o| (o, log.get(o))).collect();
            self.send(
                Node::Broker(id),
                Node::Consumer(p.consumer),
                Body::ConsumerFetchResponse(ConsumerFetchResponse {
                    request: p.request,
                    offset: p.offset,
                    records,
                    hw,
                    error: None,
                    preferred: None,
                }),
            );
            names.push(self.consumers[p.consumer].spec.id.clone());
        }
        say!(
            self,
            " The HW move releases {}'s waiting fetch{} on broker {id}.",
            names.join(" and "),
            if names.len() == 1 { "" } else { "es" }
        )
    }

    pub(crate) fn expire_consumer_fetch(&mut self, id: u32, c: usize) {
        self.event = Some(EventRecord {
            broker: Some(id),
            consumer: Some(self.consumers[c].spec.id.clone()),
            timer: Some("consumer-fetch-expiry"),
            ..EventRecord::new("timeout")
        });
        let Some(i) = self.broker(id).parked_consumers.iter().position(|p| p.consumer == c) else {
            return;
        };
        let p = self.broker_mut(id).parked_consumers.remove(i);
        self.serve_consumer(id, c, p.request, p.offset, true);
    }

    pub(crate) fn handle_consumer_fetch_response(&mut self, msg: &MsgHead, resp: ConsumerFetchResponse) {
        let ConsumerFetchResponse { request, offset, records, hw, error, preferred } = resp;
        let Node::Consumer(c) = msg.to else { return };
        let Node::Broker(from) = msg.from else { return };
        let ids: Vec<String> =
            if self.narrate { records.iter().filter_map(|(_, e)| e.map(|e| self.record_name(e.id))).collect() } else { Vec::new() };
        self.event = Some(EventRecord {
            records: Some(crate::json::Value::Array(ids.iter().cloned().map(crate::json::Value::String).collect())),
            offset: Some(offset),
            hw: Some(hw),
            error: error.map(|e| e.name()),
            preferred_read_replica: preferred,
            ..EventRecord::message("consumer_fetch_response", msg, self)
        });
        let cname = self.consumers[c].spec.id.clone();
        match self.consumers[c].in_flight {
            Some((_, r, timer)) if r == request => self.cancel(timer),
            _ => {
                self.ev().outcome = Some("ignored");
                self.text = say!(self, "{cname} gets an answer to a fetch it has given up on; ignored.");
                return;
            }
        }
        self.consumers[c].in_flight = None;
        let mut text = match (error, preferred) {
            (Some(KafkaError::OffsetOutOfRange), _)
                if self.consumers[c].spec.fetch_from == Some(from) && self.broker(from).lead.is_none() =>
            {
                self.consumers[c].use_leader = true;
                say!(
                    self,
                    "{cname} is told OFFSET_OUT_OF_RANGE by follower {from}; it forgets its preferred replica and goes back to the leader."
                )
            }
            (Some(KafkaError::OffsetOutOfRange), _) => {
                let position = self.consumers[c].position;
                self.consumers[c].position = hw.min(position);
                say!(self, "{cname} is told OFFSET_OUT_OF_RANGE by broker {from}; auto.offset.reset moves it to {}.", hw.min(position))
            }
            (Some(e), _) => {
                let timer = self.set_timer(self.now + RETRY_BACKOFF_MS, Timer::ConsumerRequestTimeout { consumer: c });
                self.consumers[c].in_flight = Some((u32::MAX, 0, timer));
                self.text =
                    say!(self, "{cname}'s fetch fails with {}; it refreshes metadata and retries in {RETRY_BACKOFF_MS} ms.", e.name());
                return;
            }
            (None, Some(f)) => say!(self, "{cname} switches to broker {f} as told."),
            (None, None) if records.is_empty() => say!(self, "{cname} gets no records from broker {from} (its HW is {hw})."),
            (None, None) => {
                let n = records.len() as u64;
                for (o, e) in &records {
                    if let Some(e) = e {
                        self.consumers[c].read.push((*o, e.id));
                        self.invariants.note_consumed(c, *o, e.id);
                    }
                }
                let consumer = &mut self.consumers[c];
                consumer.position = offset + n;
                consumer.records_read += n;
                let shown = if ids.is_empty() { say!(self, "{n} record{}", plural(n as usize)) } else { ids.join(", ") };
                say!(self, "{cname} receives {shown} from broker {from}; its position is now {}.", offset + n)
            }
        };
        if let Some((target, sent)) = self.send_consumer_fetch(c) {
            text.push_str(&say!(self, " It fetches again from broker {target} at {}.{}", self.consumers[c].position, sent.note()));
        }
        self.text = text;
    }

    /// No answer within request.timeout.ms (or the retry backoff is over): fetch again.
    pub(crate) fn consumer_request_timeout(&mut self, c: usize) {
        let cname = self.consumers[c].spec.id.clone();
        self.event =
            Some(EventRecord { consumer: Some(cname.clone()), timer: Some("consumer-request-timeout"), ..EventRecord::new("timeout") });
        let retry = matches!(self.consumers[c].in_flight, Some((u32::MAX, _, _)));
        self.consumers[c].in_flight = None;
        let head = if retry {
            say!(self, "{cname} retries.")
        } else {
            say!(self, "{cname}'s fetch has had no answer for request.timeout.ms; it sends another.")
        };
        self.text = match self.send_consumer_fetch(c) {
            Some((target, sent)) => say!(self, "{head} Fetch at {} to broker {target}.{}", self.consumers[c].position, sent.note()),
            None => say!(self, "{head} There is no leader yet; it waits {RETRY_BACKOFF_MS} ms."),
        };
    }
}
