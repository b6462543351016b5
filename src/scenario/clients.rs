//! The clients' settings in force: what a producer or consumer object sets, else
//! Kafka's default for the preset, after the Java client's own cross-field rules
//! (`ProducerConfig.postProcessAndValidateIdempotenceConfigs`,
//! `KafkaProducer.configureDeliveryTimeout`). A rule Kafka enforces with a
//! `ConfigException` is an error naming the field; one it applies silently (idempotence
//! disabled by acks=1 when not set explicitly) is applied the same way here.

use super::defaults::IdempotenceRules;
use super::{Acks, ConsumerSpec, Defaults, OffsetReset, Preset, ProducerSpec, ScenarioError};

pub use super::defaults::MAX_RETRIES;

/// A producer's settings as the simulation uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerSettings {
    /// The scenario's `acks`, else the preset's default ("1" before 3.0).
    pub acks: Acks,
    pub idempotent: bool,
    pub retries: u64,
    /// None before 2.1 (KIP-91): no delivery timeout; `retries` alone bounds a batch.
    pub delivery_timeout_ms: Option<u64>,
    pub request_timeout_ms: u64,
    pub retry_backoff_ms: u64,
    /// Equal to `retry_backoff_ms` when backoff does not grow (before 3.7, or when the
    /// maximum is below the base: a static backoff, as the Java client warns).
    pub retry_backoff_max_ms: u64,
    pub metadata_max_age_ms: u64,
    pub max_in_flight: u64,
}

/// A consumer's settings as the simulation uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsumerSettings {
    pub request_timeout_ms: u64,
    pub metadata_max_age_ms: u64,
    pub retry_backoff_ms: u64,
    pub auto_offset_reset: OffsetReset,
}

impl ProducerSpec {
    /// A producer with Kafka's defaults.
    pub fn new(id: &str, acks: Acks) -> ProducerSpec {
        ProducerSpec {
            id: id.to_string(),
            acks: Some(acks),
            request_timeout_ms: 30_000,
            enable_idempotence: None,
            retries: None,
            delivery_timeout_ms: None,
            retry_backoff_ms: None,
            retry_backoff_max_ms: None,
            metadata_max_age_ms: None,
            max_in_flight: None,
        }
    }

    /// enable.idempotence in force, with the acks, retries and max.in.flight it leaves,
    /// or the `ConfigException` the version's producer raises. Each version's rules are
    /// [`IdempotenceRules`]: KafkaProducer's `configureAcks`/`configureRetries`/
    /// `configureInflightRequests` (0.11–2.7), `ProducerConfig.maybeOverrideAcksAndRetries`
    /// (2.8–3.0.0, 3.1.0), `ProducerConfig.postProcessAndValidateIdempotenceConfigs`
    /// (3.0.1, 3.1.1 and later).
    fn idempotence(&self, defaults: Defaults, field: &str) -> Result<(bool, Acks, u64, u64), ScenarioError> {
        let explicit = self.enable_idempotence.is_some();
        let error = |name: &str, why: String| Err(ScenarioError::new(error_text!("{field}.{name}"), why));
        let mut acks = self.acks.unwrap_or(defaults.acks);
        let mut retries = self.retries.unwrap_or(defaults.retries);
        let mut max_in_flight = self.max_in_flight.unwrap_or(5);
        let rules = defaults.idempotence;
        let on = match rules {
            IdempotenceRules::Absent => false,
            IdempotenceRules::SetOneInFlight | IdempotenceRules::Set => self.enable_idempotence == Some(true),
            IdempotenceRules::DefaultOn | IdempotenceRules::DefaultOnInFlightChecked => {
                self.enable_idempotence.unwrap_or(defaults.enable_idempotence)
            }
        };
        if !on {
            return Ok((false, acks, retries, max_in_flight));
        }
        if matches!(rules, IdempotenceRules::SetOneInFlight | IdempotenceRules::Set) {
            // Set true before 3.0 (or in 3.0.0/3.1.0): unset acks and retries are raised.
            if self.retries == Some(0) {
                return error("retries", "must be non-zero when using the idempotent producer (enable.idempotence is true)".into());
            }
            retries = self.retries.unwrap_or(MAX_RETRIES);
            match self.acks {
                Some(a) if a != Acks::All => {
                    return error(
                        "enable.idempotence",
                        error_text!("is true, so acks must be \"all\", got {} (otherwise Kafka cannot guarantee idempotence)", a.name()),
                    )
                }
                _ => acks = Acks::All,
            }
            if rules == IdempotenceRules::SetOneInFlight {
                match self.max_in_flight {
                    Some(n) if n != 1 => {
                        return error(
                            "max.in.flight.requests.per.connection",
                            error_text!("must be 1 to use the idempotent producer before 1.0, got {n}"),
                        )
                    }
                    _ => max_in_flight = 1,
                }
            } else if max_in_flight > 5 {
                return error(
                    "max.in.flight.requests.per.connection",
                    error_text!("must be at most 5 to use the idempotent producer, got {max_in_flight}"),
                );
            }
            return Ok((true, acks, retries, max_in_flight));
        }
        let mut idempotent = true;
        if retries == 0 {
            if explicit {
                return error("retries", "must be non-zero when using the idempotent producer (enable.idempotence is true)".into());
            }
            idempotent = false;
        }
        if acks != Acks::All {
            if explicit {
                return error(
                    "enable.idempotence",
                    error_text!("is true, so acks must be \"all\", got {} (otherwise Kafka cannot guarantee idempotence)", acks.name()),
                );
            }
            idempotent = false;
        }
        // Checked while idempotence is still on, whether set or by default (as Kafka does).
        if max_in_flight > 5 {
            if explicit || rules == IdempotenceRules::DefaultOnInFlightChecked {
                return error(
                    "max.in.flight.requests.per.connection",
                    error_text!(
                        "must be at most 5 to use the idempotent producer, got {max_in_flight} (set enable.idempotence to false for more)"
                    ),
                );
            }
            idempotent = false;
        }
        Ok((idempotent, acks, retries, max_in_flight))
    }

    /// The settings in force under `preset`, or the error Kafka's producer would raise
    /// (`field` is the producer's path, `producers[0]`).
    pub fn settings(&self, preset: Preset, field: &str) -> Result<ProducerSettings, ScenarioError> {
        let defaults = preset.defaults();
        let (idempotent, acks, retries, max_in_flight) = self.idempotence(defaults, field)?;
        let request_timeout_ms = self.request_timeout_ms;
        // Before 2.1 the producer has no delivery.timeout.ms: Kafka ignores the unknown
        // setting (it logs that it "isn't a known config"), and so does the model.
        let delivery_timeout_ms = match self.delivery_timeout_ms.filter(|_| defaults.delivery_timeout_ms.is_some()) {
            None if defaults.delivery_timeout_ms.is_none() => None,
            Some(d) if d < request_timeout_ms => {
                return Err(ScenarioError::new(
                    error_text!("{field}.delivery.timeout.ms"),
                    error_text!("must be at least linger.ms (0) + request.timeout.ms ({request_timeout_ms}), got {d}"),
                ))
            }
            Some(d) => Some(d),
            // Kafka raises an unset delivery timeout to linger.ms + request.timeout.ms.
            None => defaults.delivery_timeout_ms.map(|d| d.max(request_timeout_ms)),
        };
        let retry_backoff_ms = self.retry_backoff_ms.unwrap_or(100);
        let retry_backoff_max_ms = match self.retry_backoff_max_ms.or(defaults.retry_backoff_max_ms) {
            Some(max) => max,
            None => retry_backoff_ms,
        };
        Ok(ProducerSettings {
            acks,
            idempotent,
            retries,
            delivery_timeout_ms,
            request_timeout_ms,
            retry_backoff_ms: retry_backoff_ms.min(retry_backoff_max_ms),
            retry_backoff_max_ms,
            metadata_max_age_ms: self.metadata_max_age_ms.unwrap_or(300_000),
            max_in_flight,
        })
    }
}

impl ConsumerSpec {
    /// The settings in force under `preset` (`request.timeout.ms` is 305 s before 2.0).
    pub fn settings(&self, preset: Preset) -> ConsumerSettings {
        ConsumerSettings {
            request_timeout_ms: self.request_timeout_ms.unwrap_or(preset.defaults().consumer_request_timeout_ms),
            metadata_max_age_ms: self.metadata_max_age_ms.unwrap_or(300_000),
            retry_backoff_ms: self.retry_backoff_ms.unwrap_or(100),
            auto_offset_reset: self.auto_offset_reset.unwrap_or(OffsetReset::Latest),
        }
    }
}
