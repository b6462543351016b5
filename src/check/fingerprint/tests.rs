//! The fingerprint's unit tests (kept apart so mod.rs stays readable).

use super::*;

/// A walker in `Mode::Refs` over `sim` under `perm`, as the search hashes references.
fn refs_walker<'a>(cx: &'a Ctx<'a>) -> Walker<'a, REFS> {
    Walker { h: StableHash::default(), owner: u32::MAX, cx }
}

/// What a walk of `sim` under `perm` reads, as the search builds it (send times hashed).
fn ctx<'a>(sim: &'a Sim, perm: &Perm) -> Ctx<'a> {
    Ctx {
        sim,
        perm: *perm,
        now: sim.now,
        next_msg: sim.next_msg,
        sent: true,
        cache: 1,
        places: Places::new(&sim.sched.queue, sim.in_flight.as_slice()),
        brokers: sim.brokers.len().min(8) as u8,
    }
}

/// Each participant's references hashed alone (`refs.rs`) hash what the walk of the
/// whole node hashes in `Mode::Refs`, along every built-in's run and under a renaming.
#[test]
fn node_references_walked_alone() {
    let mut states = 0;
    for name in crate::builtin::names() {
        let mut sim = Sim::new(crate::builtin::load(name).expect("a built-in"));
        while sim.step < 300 && sim.step() {
            for perm in [Perm::IDENTITY, Perm::from_order(&[1, 0, 2, 3, 4, 5, 6, 7])] {
                let cx = ctx(&sim, &perm);
                let w = refs_walker(&cx);
                let (mut whole, mut refs) = (w, w);
                for b in &sim.brokers {
                    whole.broker_state(b);
                    refs.broker_refs(b);
                }
                whole.controller(&sim.controller);
                refs.controller_refs(&sim.controller);
                for p in &sim.producers {
                    whole.producer(p);
                    refs.producer_refs(p);
                }
                for c in &sim.consumers {
                    whole.consumer(c);
                    refs.consumer_refs(c);
                }
                assert_eq!(whole.h.0, refs.h.0, "{name}, step {}", sim.step);
                states += 1;
            }
        }
    }
    assert!(states > 1000, "{states}");
}

/// A message's references hashed alone (`Walker::msg_refs`) hash what the walk of
/// the whole message hashes in `Mode::Refs`, for every message the built-ins send.
#[test]
fn message_references_walked_alone() {
    let mut kinds = std::collections::BTreeSet::new();
    for name in crate::builtin::names() {
        let mut sim = Sim::new(crate::builtin::load(name).expect("a built-in"));
        while sim.step < 300 && sim.step() {
            for (m, _) in sim.in_flight.values() {
                let cx = ctx(&sim, &Perm::IDENTITY);
                let w = refs_walker(&cx);
                let (mut whole, mut refs) = (w, w);
                whole.msg(m);
                refs.msg_refs(m);
                assert_eq!(whole.h.0, refs.h.0, "{name}: {m:?}");
                kinds.insert(crate::sim::msg::kind_of(&m.body));
            }
        }
    }
    assert!(kinds.len() >= 15, "{kinds:?}");
}

/// `Places` finds every item of the queue where a search over it does, and no key
/// that is not there (a timer fired or cancelled, another time, another class), along
/// every built-in's run.
#[test]
fn places_agree_with_a_search() {
    let mut keys = 0;
    for name in crate::builtin::names() {
        let mut sim = Sim::new(crate::builtin::load(name).expect("a built-in"));
        let mut old: Vec<Key> = Vec::new();
        while sim.step < 300 && sim.step() {
            let queue = &sim.sched.queue;
            let places = Places::new(queue, sim.in_flight.as_slice());
            let mut probes: Vec<Key> = queue.iter().map(|(k, _)| *k).collect();
            probes.extend(queue.iter().flat_map(|&((at, class, seq), _)| {
                [(at + 1, class, seq), (at, class ^ 1, seq), (at, class, seq + 1), (at, class, seq + PLACES as u64)]
            }));
            probes.extend(old.iter().copied());
            for key in probes {
                let searched = queue.binary_search_by(|(k, _)| key.cmp(k)).ok();
                assert_eq!(places.find(queue, key).ok(), searched, "{name}, step {}, {key:?}", sim.step);
                keys += 1;
            }
            // Each delivery's message, found by the table as by a search.
            for &(key, ref due) in queue {
                if let Due::Deliver(id) = *due {
                    let found = places.msg(&sim.in_flight, key, id).map(|(m, _)| m.id);
                    assert_eq!(found, sim.in_flight.get(&id).map(|(m, _)| m.id), "{name}, step {}, message {id}", sim.step);
                    keys += 1;
                }
            }
            old = queue.iter().map(|(k, _)| *k).collect();
        }
    }
    assert!(keys > 10_000, "{keys}");
}
