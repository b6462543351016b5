//! Symmetry reduction: followers that the scenario treats alike are
//! interchangeable, so a state and the same state with two of them renamed
//! are one state. The fingerprint is the least over the renamings.
//!
//! Broker 0 (the first leader) is never interchangeable. Followers are
//! interchangeable when nothing in the scenario tells them apart: the same
//! heartbeat and HW-checkpoint phases (drawn from the seed), no per-link
//! latency, no consumer reading from them, no scripted event naming them.

use super::fingerprint::Perm;
use crate::scenario::{Endpoint, LinkCut, Scenario};
use crate::sim::Sim;

/// At most this many renamings per state (4 interchangeable followers).
const MAX_PERMS: usize = 24;

/// Groups of interchangeable followers (each of two or more).
pub fn groups(s: &Scenario) -> Vec<Vec<u8>> {
    let sim = Sim::new(s.clone());
    let phases: Vec<(u64, u64)> = sim.brokers.iter().map(|b| (b.heartbeat_phase, b.hw_checkpoint_phase)).collect();
    let names = |c: &LinkCut, b: u32| {
        let e = Endpoint::Broker(b);
        c.between.as_ref().is_some_and(|[x, y]| *x == e || *y == e) || c.from.as_ref() == Some(&e) || c.to.as_ref() == Some(&e)
    };
    let named = |b: u32| {
        s.network.links.iter().any(|l| l.from == Endpoint::Broker(b) || l.to == Endpoint::Broker(b))
            || s.consumers.iter().any(|c| c.fetch_from == Some(b))
            || s.events.iter().any(|e| {
                e.crash.as_ref().is_some_and(|c| c.broker == b)
                    || e.restart.as_ref().is_some_and(|r| r.broker == b)
                    || [&e.partition, &e.heal].iter().any(|cut| cut.as_ref().is_some_and(|c| names(c, b)))
                    || e.add_consumer.as_ref().is_some_and(|c| c.fetch_from == Some(b))
            })
    };
    let mut groups: Vec<Vec<u8>> = Vec::new();
    for b in 1..s.replicas {
        if named(b) {
            continue;
        }
        match groups.iter_mut().find(|g| phases[g[0] as usize] == phases[b as usize]) {
            Some(g) => g.push(b as u8),
            None => groups.push(vec![b as u8]),
        }
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Every renaming within the groups (the identity first), at most `MAX_PERMS`.
pub fn perms(s: &Scenario) -> Vec<Perm> {
    let mut orders: Vec<Vec<u8>> = vec![(0..8).collect()];
    for g in groups(s) {
        let mut next = Vec::new();
        for order in &orders {
            for p in permutations(&g) {
                let mut o = order.clone();
                for (slot, &b) in g.iter().zip(&p) {
                    o[*slot as usize] = b;
                }
                next.push(o);
            }
        }
        if next.len() > MAX_PERMS {
            break;
        }
        orders = next;
    }
    orders.iter().map(|o| Perm::from_order(o)).collect()
}

/// All orderings of `items`, the given order first.
fn permutations(items: &[u8]) -> Vec<Vec<u8>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}
