use hwscope::sim::*;
fn main() {
    use std::mem::size_of;
    println!("Sim {}", size_of::<Sim>());
    println!("Broker {}", size_of::<Broker>());
    println!("LeaderState {}", size_of::<LeaderState>());
    println!("Msg {}", size_of::<Msg>());
    println!("Body {}", size_of::<Body>());
    println!("Due {}", size_of::<Due>());
    println!("Step {}", size_of::<Step>());
    println!("Event {}", size_of::<Event>());
    println!("Producer {}", size_of::<Producer>());
    println!("Invariants {}", size_of::<invariants::Invariants>());
    println!("Controller {}", size_of::<Controller>());
    let s = hwscope::Scenario::from_json(&std::fs::read_to_string("/tmp/ex/div.json").unwrap()).unwrap();
    let mut sim = Sim::new(s);
    for _ in 0..12 {
        sim.step();
    }
    println!("queue {} inflight {}", sim.sched.len(), sim.in_flight.len());
    println!("approx {}", hwscope::check::approx_bytes(&sim));
}
