//! The fingerprint's unit tests (kept apart so mod.rs stays readable).

use super::*;

/// A walker in `Mode::Refs` over `sim` under `perm`, as the search hashes references.
fn refs_walker<'a>(cx: &'a Ctx<'a>) -> Walker<'a, REFS> {
    Walker::new(cx)
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
        legacy: true,
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

/// The cached encoding of references (`cache.rs`: ids linearly, timers by time,
/// class and rank) and the encoding before it (ids walked, timers by their place in
/// the queue) tell the same states apart: over a breadth-first search from every
/// built-in (cuts, a caught message, a renaming of followers), and over each state with a
/// timer taken out of the queue (so that a node names one that is gone), two states
/// hash alike under one exactly when they do under the other.
#[test]
fn encodings_tell_the_same_states_apart() {
    use crate::check::moves::{apply, moves};
    use crate::check::{Bounds, Config, FaultMenu};
    use std::collections::HashMap;
    let (mut states, mut ranked, mut absent) = (0, 0, 0);
    for name in crate::builtin::names() {
        let config = Config {
            bounds: Bounds { max_depth: 30, faults: 2, ..Bounds::default() },
            menu: FaultMenu { cut: true, catch: 1, ..FaultMenu::default() },
            ..Config::default()
        };
        let base = config.base_scenario(&crate::builtin::load(name).expect("a built-in"));
        let swap = Perm::from_order(&[0, 2, 1, 3, 4, 5, 6, 7]);
        let perms = if base.replicas >= 3 { vec![Perm::IDENTITY, swap] } else { vec![Perm::IDENTITY] };
        let (mut new_to_old, mut old_to_new) = (HashMap::new(), HashMap::new());
        let mut frontier = vec![(Sim::new(base), crate::check::Used::default())];
        let mut next = Vec::new();
        let mut seen = 0;
        while let Some((sim, used)) = frontier.pop() {
            let mut variants = vec![sim.clone()];
            // A timer taken out of the queue: a node names one that is gone.
            if let Some(k) = sim.sched.queue.iter().rev().find(|(_, d)| matches!(d, Due::Timer(_))).map(|(k, _)| *k) {
                let mut gone = sim.clone();
                gone.sched.cancel(k);
                variants.push(gone);
            }
            // A broker's heartbeat timer named as one that is not in the queue, at its
            // time and class, and as another item of its time and class (its rank).
            for b in 0..sim.brokers.len() {
                let Some(k) = sim.brokers[b].heartbeat_timer else { continue };
                let mut stale = sim.clone();
                stale.brokers[b].heartbeat_timer = Some((k.0, k.1, k.2 + (1 << 20)));
                variants.push(stale);
                for &(other, _) in &sim.sched.queue {
                    if other != k && other.0 == k.0 && other.1 == k.1 {
                        let mut swapped = sim.clone();
                        swapped.brokers[b].heartbeat_timer = Some(other);
                        variants.push(swapped);
                    }
                }
            }
            let mut fresh = false;
            for (i, s) in variants.iter().enumerate() {
                for perm in &perms {
                    let (new, old) = (walk(s, perm, used.word(), true, false), walk(s, perm, used.word(), true, true));
                    assert_eq!(*new_to_old.entry(new).or_insert(old), old, "{name}: two states alike only in the new encoding");
                    let before = old_to_new.len();
                    assert_eq!(*old_to_new.entry(old).or_insert(new), new, "{name}: two states alike only in the old encoding");
                    fresh |= i == 0 && old_to_new.len() > before;
                    let cx = ctx(s, perm);
                    let states_of = s.brokers.iter().filter_map(|b| b.heartbeat_timer).map(|k| cx.key_state(k).2);
                    let (r, a) = states_of.fold((false, false), |(r, a), st| (r || (st > 0 && st < 0xffff), a || st == 0xffff));
                    ranked += r as u32;
                    absent += a as u32;
                    states += 1;
                }
            }
            seen += 1;
            if !fresh || seen > 1500 || sim.step >= 30 {
                continue;
            }
            moves(&sim, &config.menu, used.faults < 2, false, false, &mut next);
            for &mv in &next {
                let mut child = sim.clone();
                apply(&mut child, mv, None);
                frontier.insert(0, (child, used.after(mv)));
            }
        }
    }
    assert!(states > 20_000 && ranked > 500 && absent > 5_000, "{states} states, {ranked} with a rank, {absent} with a reference gone");
}
