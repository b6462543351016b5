//! Tests of engine rules that the explorer's findings led to (the engine's own
//! modules may not load a built-in scenario: tests/architecture.rs).

#[cfg(test)]
mod tests {
    use crate::sim::state::PendingIsr;
    use crate::sim::Sim;

    /// `TopicDelta.localChanges` (4.0): metadata resent with the partition epoch the
    /// leader's image already has (a registration elsewhere) keeps the leader's pending
    /// ISR expansion; a newer partition epoch replaces the ISR and the pending change.
    #[test]
    fn unchanged_partition_in_a_delta_keeps_the_pending_isr() {
        let mut scenario = crate::builtin::load("kip101-data-loss").unwrap();
        scenario.events.clear();
        let mut sim = Sim::new(scenario);
        sim.lead_mut(0).isr = vec![0];
        sim.lead_mut(0).pending = Some(PendingIsr::Expand(1));
        let mut meta = sim.controller.metadata();
        meta.isr = vec![0];
        meta.offset += 1;
        sim.apply_metadata(0, &meta);
        assert!(matches!(sim.lead(0).pending, Some(PendingIsr::Expand(1))), "kept: the partition did not change");
        assert!(sim.lead(0).in_maximal_isr(1));
        meta.partition_epoch += 1;
        meta.offset += 1;
        sim.apply_metadata(0, &meta);
        assert!(sim.lead(0).pending.is_none(), "a changed partition replaces the ISR and the pending change");
        assert_eq!(sim.lead(0).isr, [0]);
    }
}
