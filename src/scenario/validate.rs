//! Validation: every value a JSON type cannot check (ranges, references,
//! uniqueness, totals), each error naming its field; and actions turned into
//! what the simulation consumes.

use super::*;

impl Scenario {
    /// Checks every value a JSON type cannot: ranges, references, uniqueness.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.format != 1 {
            return Err(ScenarioError::new("format", error_text!("must be 1, got {} (made by a newer hwscope?)", self.format)));
        }
        if !(1..=MAX_REPLICAS).contains(&self.replicas) {
            return Err(ScenarioError::new("replicas", error_text!("must be between 1 and {MAX_REPLICAS}, got {}", self.replicas)));
        }
        in_range("initial.log_end_offset", self.initial.log_end_offset, 0, 1_000_000_000)?;
        in_range("record_bytes", self.record_bytes, 1, 1_048_576)?;
        in_range("stop_at_ms", self.stop_at_ms, 0, MAX_TIME_MS)?;
        self.validate_config()?;
        in_range("network.latency_ms", self.network.latency_ms, 1, 60_000)?;
        in_range("network.jitter_ms", self.network.jitter_ms, 0, 60_000)?;
        for (i, link) in self.network.links.iter().enumerate() {
            self.link_ends(&error_text!("network.links[{i}]"), &link.from, &link.to, ("from", "to"))?;
            in_range(&error_text!("network.links[{i}].latency_ms"), link.latency_ms, 1, 60_000)?;
        }
        if self.producers.len() > 8 {
            return Err(ScenarioError::new("producers", error_text!("at most 8 producers, got {}", self.producers.len())));
        }
        for (i, p) in self.producers.iter().enumerate() {
            client_id(&error_text!("producers[{i}].id"), &p.id)?;
            if self.producers[..i].iter().any(|q| q.id == p.id) {
                return Err(ScenarioError::new(error_text!("producers[{i}].id"), error_text!("\"{}\" is used twice", p.id)));
            }
            self.validate_producer(&error_text!("producers[{i}]"), p)?;
        }
        if self.consumers.len() > 8 {
            return Err(ScenarioError::new("consumers", error_text!("at most 8 consumers, got {}", self.consumers.len())));
        }
        for (i, c) in self.consumers.iter().enumerate() {
            self.validate_consumer(&error_text!("consumers[{i}]"), c)?;
            if self.consumers[..i].iter().any(|d| d.id == c.id) {
                return Err(ScenarioError::new(error_text!("consumers[{i}].id"), error_text!("\"{}\" is used twice", c.id)));
            }
        }
        if self.events.len() > 10_000 {
            return Err(ScenarioError::new("events", error_text!("at most 10000 events, got {}", self.events.len())));
        }
        // Every produced record lives in every log: bound the total so that no
        // scenario (a link, a settings edit) can exhaust a browser tab's memory.
        let produced: u64 = self
            .events
            .iter()
            .filter_map(|e| e.produce.as_ref().map(|p| (p.records as u64).saturating_mul(e.repeat.map_or(1, |r| r.count as u64))))
            .fold(0u64, u64::saturating_add);
        if produced > MAX_PRODUCED {
            return Err(ScenarioError::new("events", error_text!("at most {MAX_PRODUCED} records produced in all, got {produced}")));
        }
        for (i, e) in self.events.iter().enumerate() {
            let field = error_text!("events[{i}]");
            if e.at_ms < 0 {
                return Err(ScenarioError::new(error_text!("{field}.at_ms"), error_text!("must be 0 or more, got {}", e.at_ms)));
            }
            if e.at_ms as u64 > MAX_TIME_MS {
                return Err(ScenarioError::new(
                    error_text!("{field}.at_ms"),
                    error_text!("must be at most {MAX_TIME_MS}, got {}", e.at_ms),
                ));
            }
            self.action(&field, e)?;
            if e.at_step == Some(0) {
                return Err(ScenarioError::new(error_text!("{field}.at_step"), "must be 1 or more (step 0 is the start)"));
            }
            if let Some(r) = e.repeat {
                in_range(&error_text!("{field}.repeat.count"), r.count as u64, 1, 100_000)?;
                in_range(&error_text!("{field}.repeat.every_ms"), r.every_ms, 1, MAX_TIME_MS)?;
            }
        }
        for (i, p) in self.schedule.iter().enumerate() {
            in_range(&error_text!("schedule[{i}].at_step"), p.at_step, 1, u32::MAX as u64)?;
            in_range(&error_text!("schedule[{i}].pick"), p.pick as u64, 0, 10_000)?;
            if self.schedule[..i].iter().any(|q| q.at_step == p.at_step) {
                return Err(ScenarioError::new(error_text!("schedule[{i}].at_step"), error_text!("step {} is picked twice", p.at_step)));
            }
        }
        Ok(())
    }

    fn validate_config(&self) -> Result<(), ScenarioError> {
        let c = &self.config;
        in_range("config.replica.fetch.wait.max.ms", c.replica_fetch_wait_max_ms, 0, 600_000)?;
        in_range("config.replica.fetch.min.bytes", c.replica_fetch_min_bytes, 0, 1 << 30)?;
        in_range("config.replica.fetch.max.bytes", c.replica_fetch_max_bytes, 1, 1 << 30)?;
        if let Some(lag) = c.replica_lag_time_max_ms {
            in_range("config.replica.lag.time.max.ms", lag, 2, MAX_TIME_MS)?;
        }
        if let Some(session) = c.zookeeper_session_timeout_ms {
            in_range("config.zookeeper.session.timeout.ms", session, 3, MAX_TIME_MS)?;
        }
        in_range("config.min.insync.replicas", c.min_insync_replicas as u64, 1, MAX_REPLICAS as u64)?;
        in_range("config.broker.heartbeat.interval.ms", c.broker_heartbeat_interval_ms, 1, MAX_TIME_MS)?;
        in_range("config.broker.session.timeout.ms", c.broker_session_timeout_ms, 1, MAX_TIME_MS)?;
        if c.broker_session_timeout_ms < c.broker_heartbeat_interval_ms {
            return Err(ScenarioError::new(
                "config.broker.session.timeout.ms",
                error_text!(
                    "must be at least broker.heartbeat.interval.ms ({}), got {}",
                    c.broker_heartbeat_interval_ms,
                    c.broker_session_timeout_ms
                ),
            ));
        }
        in_range("config.replica.socket.timeout.ms", c.replica_socket_timeout_ms, 1, MAX_TIME_MS)?;
        in_range("config.replica.fetch.backoff.ms", c.replica_fetch_backoff_ms, 1, MAX_TIME_MS)?;
        if let Some(t) = c.request_timeout_ms {
            in_range("config.request.timeout.ms", t, 1, MAX_TIME_MS)?;
        }
        if let Some(t) = c.replica_high_watermark_checkpoint_interval_ms {
            in_range("config.replica.high.watermark.checkpoint.interval.ms", t, 1, MAX_TIME_MS)?;
        }
        if let Some(phase) = self.phases.fence_check_ms {
            let period = (c.broker_session_timeout_ms / 8).max(1);
            in_range("phases.fence_check_ms", phase, 0, period - 1)?;
        }
        let beats = &self.phases.heartbeat_ms;
        if !beats.is_empty() {
            if beats.len() != self.replicas as usize {
                return Err(ScenarioError::new(
                    "phases.heartbeat_ms",
                    error_text!("one phase per broker: {} replicas, got {}", self.replicas, beats.len()),
                ));
            }
            if self.behavior().broker_liveness != BrokerLiveness::BrokerHeartbeat {
                return Err(ScenarioError::new(
                    "phases.heartbeat_ms",
                    "brokers heartbeat in the KRaft presets only (the ZooKeeper-era presets ping ZooKeeper on their own grid)",
                ));
            }
            for (i, &phase) in beats.iter().enumerate() {
                in_range(&error_text!("phases.heartbeat_ms[{i}]"), phase, 0, c.broker_heartbeat_interval_ms - 1)?;
            }
        }
        Ok(())
    }

    /// A producer's values, then Kafka's cross-field rules for them (`ProducerSpec::settings`).
    fn validate_producer(&self, field: &str, p: &ProducerSpec) -> Result<(), ScenarioError> {
        in_range(&error_text!("{field}.request.timeout.ms"), p.request_timeout_ms, 1, MAX_TIME_MS)?;
        let optional = [
            ("retries", p.retries, 0, MAX_RETRIES),
            ("delivery.timeout.ms", p.delivery_timeout_ms, 1, MAX_TIME_MS),
            ("retry.backoff.ms", p.retry_backoff_ms, 0, MAX_TIME_MS),
            ("retry.backoff.max.ms", p.retry_backoff_max_ms, 0, MAX_TIME_MS),
            ("metadata.max.age.ms", p.metadata_max_age_ms, 0, MAX_TIME_MS),
            ("max.in.flight.requests.per.connection", p.max_in_flight, 1, 1_000),
        ];
        for (key, value, min, max) in optional {
            if let Some(v) = value {
                in_range(&error_text!("{field}.{key}"), v, min, max)?;
            }
        }
        p.settings(self.preset, field).map(|_| ())
    }

    fn validate_consumer(&self, field: &str, c: &ConsumerSpec) -> Result<(), ScenarioError> {
        client_id(&error_text!("{field}.id"), &c.id)?;
        if let Some(b) = c.fetch_from {
            self.broker_exists(&error_text!("{field}.fetch_from"), b)?;
        }
        in_range(&error_text!("{field}.fetch.max.wait.ms"), c.fetch_max_wait_ms, 0, 600_000)?;
        if let Some(v) = c.request_timeout_ms {
            in_range(&error_text!("{field}.request.timeout.ms"), v, 1, MAX_TIME_MS)?;
        }
        if let Some(v) = c.metadata_max_age_ms {
            in_range(&error_text!("{field}.metadata.max.age.ms"), v, 0, MAX_TIME_MS)?;
        }
        if let Some(v) = c.retry_backoff_ms {
            in_range(&error_text!("{field}.retry.backoff.ms"), v, 0, MAX_TIME_MS)?;
        }
        if let Some(p) = c.position {
            in_range(&error_text!("{field}.position"), p, 0, self.initial.log_end_offset)?;
        }
        Ok(())
    }

    fn broker_exists(&self, field: &str, broker: u32) -> Result<(), ScenarioError> {
        if broker >= self.replicas {
            let hint =
                if self.replicas == 1 { "the only broker is 0".to_string() } else { error_text!("brokers are 0 to {}", self.replicas - 1) };
            return Err(ScenarioError::new(field, error_text!("no broker {broker}: {hint}")));
        }
        Ok(())
    }

    /// Validates one action and turns it into what the simulation consumes.
    pub fn action(&self, field: &str, a: &EventSpec) -> Result<Action, ScenarioError> {
        let set = [
            a.produce.is_some(),
            a.crash.is_some(),
            a.restart.is_some(),
            a.partition.is_some(),
            a.heal.is_some(),
            a.add_consumer.is_some(),
        ]
        .iter()
        .filter(|s| **s)
        .count();
        if set != 1 {
            return Err(ScenarioError::new(
                field,
                error_text!("needs exactly one of produce, crash, restart, partition, heal, add_consumer; got {set}"),
            ));
        }
        if let Some(p) = &a.produce {
            let Some(producer) = self.producer_index(&p.producer) else {
                return Err(ScenarioError::new(error_text!("{field}.produce.producer"), error_text!("no producer \"{}\"", p.producer)));
            };
            in_range(&error_text!("{field}.produce.records"), p.records as u64, 1, 10_000)?;
            return Ok(Action::Produce { producer, records: p.records });
        }
        if let Some(c) = &a.crash {
            self.broker_exists(&error_text!("{field}.crash.broker"), c.broker)?;
            in_range(&error_text!("{field}.crash.unflushed"), c.unflushed, 0, 1_000_000_000)?;
            return Ok(Action::Crash { broker: c.broker, unflushed: c.unflushed, silent: c.silent });
        }
        if let Some(r) = &a.restart {
            self.broker_exists(&error_text!("{field}.restart.broker"), r.broker)?;
            return Ok(Action::Restart { broker: r.broker });
        }
        if let Some(cut) = &a.partition {
            let field = error_text!("{field}.partition");
            let links = self.link_cut(&field, cut)?;
            let channel = self.channel(&field, cut, &links)?;
            return Ok(Action::Partition { links, catch: cut.catch.clone(), channel });
        }
        if let Some(cut) = &a.heal {
            if !cut.catch.is_empty() {
                return Err(ScenarioError::new(error_text!("{field}.heal.catch"), "only a partition catches messages on the wire"));
            }
            let field = error_text!("{field}.heal");
            let links = self.link_cut(&field, cut)?;
            let channel = self.channel(&field, cut, &links)?;
            return Ok(Action::Heal { links, channel });
        }
        if let Some(c) = &a.add_consumer {
            self.validate_consumer(&error_text!("{field}.add_consumer"), c)?;
            return Ok(Action::AddConsumer(Box::new(c.clone())));
        }
        Err(ScenarioError::new(field, "empty action"))
    }

    /// `channel`: a cut of one connection between a KRaft broker and the controller.
    fn channel(&self, field: &str, cut: &LinkCut, links: &[(Peer, Peer)]) -> Result<Option<super::Channel>, ScenarioError> {
        let Some(channel) = cut.channel else { return Ok(None) };
        let path = error_text!("{field}.channel");
        if self.behavior().broker_liveness == super::BrokerLiveness::ZookeeperSession {
            return Err(ScenarioError::new(
                path,
                error_text!(
                    "a broker's separate connections to the controller (heartbeats, AlterPartition, the metadata log) are KRaft's; {} has none",
                    self.preset.name()
                ),
            ));
        }
        let broker_controller =
            |(a, b): &(Peer, Peer)| matches!((a, b), (Peer::Broker(_), Peer::Controller) | (Peer::Controller, Peer::Broker(_)));
        if !links.iter().all(broker_controller) {
            return Err(ScenarioError::new(
                path,
                "names one of a broker's connections to the controller: the link needs a broker and \"controller\" as its ends",
            ));
        }
        if !cut.catch.is_empty() {
            return Err(ScenarioError::new(path, "a cut of one channel catches nothing on the wire: leave out catch"));
        }
        Ok(Some(channel))
    }

    fn link_cut(&self, field: &str, cut: &LinkCut) -> Result<Vec<(Peer, Peer)>, ScenarioError> {
        match (&cut.between, &cut.from, &cut.to) {
            (Some([a, b]), None, None) => {
                let (a, b) = self.link_ends(field, a, b, ("between[0]", "between[1]"))?;
                Ok(vec![(a.clone(), b.clone()), (b, a)])
            }
            (None, Some(a), Some(b)) => Ok(vec![self.link_ends(field, a, b, ("from", "to"))?]),
            _ => Err(ScenarioError::new(field, "give either \"between\": [a, b] or both \"from\" and \"to\"")),
        }
    }

    /// The two ends of a link: endpoints that exist, differ, and talk to each other
    /// (a broker at one end at least: clients talk to brokers, brokers to the controller).
    fn link_ends(&self, field: &str, a: &Endpoint, b: &Endpoint, keys: (&str, &str)) -> Result<(Peer, Peer), ScenarioError> {
        let pa = self.peer(&error_text!("{field}.{}", keys.0), a)?;
        let pb = self.peer(&error_text!("{field}.{}", keys.1), b)?;
        if a == b {
            return Err(match keys.0 {
                "between[0]" if matches!(a, Endpoint::Broker(_)) => {
                    ScenarioError::new(error_text!("{field}.between"), "needs two different brokers")
                }
                "between[0]" => ScenarioError::new(error_text!("{field}.between"), "needs two different ends"),
                _ => ScenarioError::new(field, "from and to must differ"),
            });
        }
        let zookeeper_controller = matches!((&pa, &pb), (Peer::ZooKeeper, Peer::Controller) | (Peer::Controller, Peer::ZooKeeper));
        if !matches!(pa, Peer::Broker(_)) && !matches!(pb, Peer::Broker(_)) && !zookeeper_controller {
            return Err(ScenarioError::new(field, "needs a broker at one end at least: clients and the controller only talk to brokers"));
        }
        Ok((pa, pb))
    }

    /// An endpoint that exists: a broker, the controller, a producer, or a consumer
    /// (one in `consumers` or one an `add_consumer` event adds).
    fn peer(&self, field: &str, e: &Endpoint) -> Result<Peer, ScenarioError> {
        match e {
            Endpoint::Broker(b) => self.broker_exists(field, *b).map(|_| Peer::Broker(*b)),
            Endpoint::Controller => Ok(Peer::Controller),
            Endpoint::ZooKeeper if self.behavior().broker_liveness == super::BrokerLiveness::ZookeeperSession => Ok(Peer::ZooKeeper),
            Endpoint::ZooKeeper => Err(ScenarioError::new(
                field,
                error_text!(
                    "\"zookeeper\" is an end only in the ZooKeeper-era presets (up to kafka-2.8); {} has no ZooKeeper",
                    self.preset.name()
                ),
            )),
            Endpoint::Client(id) => {
                if let Some(i) = self.producer_index(id) {
                    return Ok(Peer::Producer(i));
                }
                let added = self.events.iter().filter_map(|e| e.add_consumer.as_ref());
                if self.consumers.iter().chain(added).any(|c| &c.id == id) {
                    return Ok(Peer::Consumer(id.clone()));
                }
                Err(ScenarioError::new(
                    field,
                    error_text!("no producer or consumer \"{id}\" (an end is a broker number, \"controller\" or a client id)"),
                ))
            }
        }
    }
}

fn in_range(field: &str, value: u64, min: u64, max: u64) -> Result<(), ScenarioError> {
    if value < min || value > max {
        return Err(ScenarioError::new(field, error_text!("must be between {min} and {max}, got {value}")));
    }
    Ok(())
}

fn client_id(field: &str, id: &str) -> Result<(), ScenarioError> {
    let ok = !id.is_empty() && id.len() <= 32 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if !ok {
        return Err(ScenarioError::new(
            field,
            error_text!("must be 1 to 32 letters, digits, '.', '_' or '-', got {}", crate::json::quoted(&truncate(id, 40), '"')),
        ));
    }
    if id == "controller" || id == "zookeeper" {
        return Err(ScenarioError::new(field, error_text!("\"{id}\" is reserved")));
    }
    Ok(())
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let t: String = s.chars().take(max).collect();
        error_text!("{t}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_scenario_has_contract_defaults() {
        let s = Scenario::from_json(r#"{"format":1}"#).unwrap();
        assert_eq!(s.replicas, 3);
        assert_eq!(s.seed, 1);
        assert_eq!(s.preset, Preset::Kafka40);
        assert_eq!(s.stop_at_ms, 60_000);
        assert_eq!(s.config.replica_fetch_wait_max_ms, 500);
        assert_eq!(s.producers.len(), 1);
        assert_eq!(s.producers[0].acks, Some(Acks::All));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"format":1,"replicas":40}"#, "replicas: must be between 1 and 7, got 40"),
            (r#"{"format":1,"replica":3}"#, "unknown field `replica`"),
            (r#"{"format":1,"config":{"replica.fetch.wait.max.ms":-1}}"#, "config.replica.fetch.wait.max.ms"),
            (r#"{"format":1,"events":[{"at_ms":-5,"crash":{"broker":0}}]}"#, "events[0].at_ms: must be 0 or more, got -5"),
            (r#"{"format":1,"events":[{"at_ms":5,"crash":{"broker":9}}]}"#, "events[0].crash.broker: no broker 9"),
            (r#"{"format":1,"producers":[{"id":"p1","acks":2}]}"#, "producers[0].acks"),
            (r#"{"format":2}"#, "format: must be 1, got 2"),
            (r#"{"replicas":2}"#, "missing field `format`"),
            (r#"not json"#, "not valid JSON"),
            (r#"{"format":1,"preset":"kafka-9"}"#, "preset"),
            (r#"{"format":1,"events":[{"at_ms":5}]}"#, "events[0]: needs exactly one of"),
            (
                r#"{"format":1,"events":[{"at_ms":5,"partition":{"between":[0,0]}}]}"#,
                "events[0].partition.between: needs two different brokers",
            ),
            (
                r#"{"format":1,"events":[{"at_ms":5,"partition":{"between":[0,"p9"]}}]}"#,
                "events[0].partition.between[1]: no producer or consumer \"p9\"",
            ),
            (r#"{"format":1,"events":[{"at_ms":5,"heal":{"from":"p1","to":"controller"}}]}"#, "events[0].heal: needs a broker at one end"),
            (
                r#"{"format":1,"producers":[{"id":"p1","acks":1,"enable.idempotence":true}]}"#,
                "producers[0].enable.idempotence: is true, so acks must be \"all\"",
            ),
            (
                r#"{"format":1,"producers":[{"id":"p1","max.in.flight.requests.per.connection":6}]}"#,
                "producers[0].max.in.flight.requests.per.connection: must be at most 5",
            ),
            (r#"{"format":1,"producers":[{"id":"p1","delivery.timeout.ms":1000}]}"#, "producers[0].delivery.timeout.ms: must be at least"),
            (r#"{"format":1,"producers":[{"id":"p1","retries":0,"enable.idempotence":true}]}"#, "producers[0].retries: must be non-zero"),
            (
                r#"{"format":1,"consumers":[{"id":"c1","auto.offset.reset":"middle"}]}"#,
                "consumers[0].auto.offset.reset: must be one of latest, earliest, none",
            ),
            (
                r#"{"format":1,"events":[{"at_ms":5,"partition":{"from":0,"to":"controller","channel":"fetch"}}]}"#,
                "events[0].partition.channel: must be one of alter_partition, heartbeat, metadata, got \"fetch\"",
            ),
            (
                r#"{"format":1,"events":[{"at_ms":5,"heal":{"between":[0,1],"channel":"heartbeat"}}]}"#,
                "events[0].heal.channel: names one of a broker's connections to the controller",
            ),
            (
                r#"{"format":1,"preset":"kafka-2.4","events":[{"at_ms":5,"partition":{"from":0,"to":"controller","channel":"metadata"}}]}"#,
                "events[0].partition.channel: a broker's separate connections to the controller",
            ),
        ];
        for (input, want) in cases {
            let err = Scenario::from_json(input).unwrap_err().to_string();
            assert!(err.contains(want), "{input}: got {err:?}, want {want:?}");
        }
    }

    #[test]
    fn round_trips_through_json() {
        let s = Scenario::from_json(
            r#"{"format":1,"producers":[{"id":"a","acks":0},{"id":"b","acks":-1}],"events":[{"at_ms":3,"partition":{"from":0,"to":1}},{"at_ms":4,"partition":{"from":0,"to":"controller","channel":"alter_partition"}}]}"#,
        )
        .unwrap();
        let again = Scenario::from_json(&s.to_json()).unwrap();
        assert_eq!(s, again);
        assert_eq!(again.producers[1].acks, Some(Acks::All));
    }
}
