//! `hwscope check`: the counterexample explorer on the command line. Parses
//! the bounds, runs the search (on all cores by default: `parallel.rs`),
//! prints the verdict, the counts, the counterexample as a scenario and its
//! share link, or says precisely which bounds held no counterexample.

use super::parallel::{self, Report};
use super::{load_scenario, number, value, Fail};
use crate::check::{Bounds, Config, Counterexample, FaultMenu, Outcome, StopReason, Target};
use crate::json::Named;
use crate::scenario::Preset;
use crate::Run;
use std::time::Instant;

pub const USAGE: &str = "  hwscope check SCENARIO.json|--builtin NAME [--max-depth N] [--faults K] [--threads T]
              [--property any|acked-record-lost|replicas-diverged|consumed-record-lost] [--allowed]
              [--records R] [--unflushed U] [--one-way] [--no-cuts] [--epochs E] [--max-time MS]
              [--max-states N] [--memory MIB] [--drop-faults] [--no-symmetry] [--preset NAME]
              [--out FILE] [--json]
                                   search every schedule and up to K faults for a counterexample";

/// What the command was asked.
struct Args {
    config: Config,
    threads: usize,
    out: Option<String>,
    json: bool,
    quiet: bool,
}

fn parse(args: &[String]) -> Result<(Args, crate::Scenario), Fail> {
    let (mut file, mut builtin_name, mut preset) = (None, None, None);
    let mut bounds = Bounds::default();
    let mut menu = FaultMenu::default();
    let mut target = Target::default();
    let mut config = Config::default();
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut out, mut json, mut quiet) = (None, false, false);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--builtin" => builtin_name = Some(value(args, &mut i, "--builtin")?.to_string()),
            "--preset" => preset = Some(value(args, &mut i, "--preset")?.to_string()),
            "--max-depth" => bounds.max_depth = number(args, &mut i, "--max-depth", "a number of steps")?,
            "--faults" => bounds.faults = number(args, &mut i, "--faults", "a number from 0 to 255")?,
            "--records" => bounds.records = number(args, &mut i, "--records", "a number from 0 to 255")?,
            "--unflushed" => menu.unflushed = number(args, &mut i, "--unflushed", "a number from 0 to 255")?,
            "--epochs" => bounds.leader_epochs = Some(number(args, &mut i, "--epochs", "a leader epoch")?),
            "--max-time" => bounds.max_time_ms = Some(number(args, &mut i, "--max-time", "a number of milliseconds")?),
            "--max-states" => bounds.max_states = Some(number(args, &mut i, "--max-states", "a number of states")?),
            "--memory" => {
                let mib: u64 = number(args, &mut i, "--memory", "a number of MiB")?;
                bounds.memory_bytes = Some(mib << 20);
            }
            "--threads" => {
                threads = number(args, &mut i, "--threads", "a number of threads")?;
                if threads == 0 {
                    return Err(Fail("--threads: must be 1 or more, got 0".into()));
                }
            }
            "--property" => {
                let name = value(args, &mut i, "--property")?;
                target.properties = Target::parse(name)
                    .ok_or_else(|| Fail(format!("--property: must be any, {}, got {name:?}", crate::check::PROPERTIES.join(", "))))?;
            }
            "--allowed" => target.allowed = true,
            "--one-way" => menu.one_way = true,
            "--no-cuts" => menu.cut = false,
            "--drop-faults" => config.drop_faults = true,
            "--no-symmetry" => config.symmetry = false,
            "--out" => out = Some(value(args, &mut i, "--out")?.to_string()),
            "--json" => json = true,
            "--quiet" => quiet = true,
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\nusage:\n{USAGE}"))),
            a => file = Some(a.to_string()),
        }
        i += 1;
    }
    let mut scenario = load_scenario(file, builtin_name)?;
    if let Some(p) = preset {
        scenario.preset = Preset::parse("--preset", &crate::json::Value::String(p))?;
    }
    config.bounds = bounds;
    config.menu = menu;
    config.target = target;
    Ok((Args { config, threads, out, json, quiet }, scenario))
}

pub(crate) fn cmd_check(args: &[String]) -> Result<(), Fail> {
    let (args, scenario) = parse(args)?;
    let start = Instant::now();
    let report = parallel::search(&args.config, &scenario, args.threads, start, args.quiet || args.json);
    if let (Some(path), Some(c)) = (&args.out, &report.counterexample) {
        std::fs::write(path, crate::link::minimal_json(&c.scenario) + "\n").map_err(|e| Fail(format!("{path}: {e}")))?;
    }
    if args.json {
        out!("{}", json_report(&args.config, &scenario, &report));
    } else {
        print_report(&args.config, &scenario, &report);
    }
    Ok(())
}

/// The bounds in words, exactly as searched.
pub fn describe_bounds(config: &Config, scenario: &crate::Scenario) -> String {
    let b = &config.bounds;
    let m = &config.menu;
    let mut kinds = Vec::new();
    if m.crash {
        kinds.push(if m.unflushed > 0 { format!("crash (up to {} unflushed)", m.unflushed) } else { "crash".to_string() });
    }
    if m.restart {
        kinds.push("restart".to_string());
    }
    if m.cut {
        kinds.push(if m.one_way { "cut/heal (both ways or one)".to_string() } else { "cut/heal (both ways)".to_string() });
    }
    let base = config.base_scenario(scenario);
    let mut parts = vec![
        format!("{} replicas", base.replicas),
        format!("depth ≤ {}", b.max_depth),
        format!("faults ≤ {} ({})", b.faults, kinds.join(", ")),
        format!("extra records ≤ {}", b.records),
        format!("time ≤ {} ms", base.stop_at_ms),
    ];
    if let Some(e) = b.leader_epochs {
        parts.push(format!("leader epochs ≤ {e}"));
    }
    parts.push(format!("preset {}", base.preset.name()));
    parts.push(if config.symmetry { "symmetry on".to_string() } else { "symmetry off".to_string() });
    parts.join(", ")
}

fn print_report(config: &Config, scenario: &crate::Scenario, r: &Report) {
    let p = &r.progress;
    let rate = p.distinct as f64 / r.seconds.max(1e-9);
    out!("hwscope check: {} — {}", scenario.title, config.target.describe());
    out!("bounds: {}", describe_bounds(config, scenario));
    let counts = format!(
        "{} distinct states ({} explored, depth {}{}), {:.2} s, {:.0} distinct/s on {} thread{}, ~{} bytes per distinct state at the peak",
        p.distinct,
        p.explored,
        p.depth,
        if p.pruned > 0 { format!(", {} past the epoch bound", p.pruned) } else { String::new() }
            + &if p.replayed > 0 { format!(", {} rebuilt by replay to balance threads", p.replayed) } else { String::new() },
        r.seconds,
        rate,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        p.peak_bytes / p.distinct.max(1)
    );
    match (&r.outcome, &r.counterexample) {
        (Outcome::Counterexample { .. }, Some(c)) => {
            let allowed = if c.failure.allowed { " (allowed: the configuration permits it)" } else { "" };
            out!("verdict: COUNTEREXAMPLE — {}{} at step {}", c.failure.property, allowed, c.step);
            out!("  {}", c.failure.text);
            out!("counts: {counts}");
            out!("why (newest first; * = injected by the search):");
            for w in &c.why {
                out!("  {}step {:>3} t={:>6} ms  {}", if w.injected { "*" } else { " " }, w.step, w.time_ms, w.text);
            }
            let replays = if c.replays() { "✓ replays to the same violation" } else { "✗ DOES NOT REPLAY (a bug: please report)" };
            out!("scenario ({replays} with `hwscope run`):");
            out!("{}", crate::link::minimal_json(&c.scenario));
            out!("link: {}", share_link(c));
        }
        (Outcome::Exhausted, _) => {
            out!(
                "verdict: no counterexample within these bounds (every state within them was explored; a larger bound may still find one)"
            );
            out!("counts: {counts}");
        }
        (Outcome::Stopped(reason), _) => {
            let why = match reason {
                StopReason::Memory => {
                    format!("the memory bound ({} MiB, estimated) was reached", config.bounds.memory_bytes.unwrap_or(0) >> 20)
                }
                StopReason::States => format!("the state bound ({}) was reached", config.bounds.max_states.unwrap_or(0)),
            };
            out!("verdict: STOPPED — {why} before the search was done: no counterexample among the states explored; tighten the bounds or raise the limit");
            out!("counts: {counts}");
        }
        _ => {}
    }
    if let Some(text) = &r.allowed_seen {
        out!("note: a loss the configuration permits was seen (not a counterexample; --allowed makes it one): {text}");
    }
}

/// The fragment of a link to the violating step.
pub fn share_link(c: &Counterexample) -> String {
    let mut run = Run::new(c.scenario.clone());
    run.seek(c.step);
    let hash = crate::link::state_hash(&run.record());
    format!("#{}", crate::link::encode(&c.scenario, Some(c.step), Some(&hash)))
}

fn json_report(config: &Config, scenario: &crate::Scenario, r: &Report) -> String {
    use crate::json::Obj;
    let p = &r.progress;
    let verdict = match r.outcome {
        Outcome::Counterexample { .. } => "counterexample",
        Outcome::Exhausted => "none-within-bounds",
        Outcome::Stopped(StopReason::Memory) => "stopped-memory",
        Outcome::Stopped(StopReason::States) => "stopped-states",
    };
    let mut text = String::new();
    let mut o = Obj::new(&mut text);
    o.field("verdict", &verdict)
        .field("bounds", &describe_bounds(config, scenario))
        .field("distinct", &p.distinct)
        .field("explored", &p.explored)
        .field("depth", &p.depth)
        .field("seconds", &r.seconds)
        .field("threads", &(r.threads as u64))
        .field("distinct_per_second", &(p.distinct as f64 / r.seconds.max(1e-9)))
        .field("bytes_per_state", &(p.peak_bytes / p.distinct.max(1)))
        .field("peak_bytes", &p.peak_bytes);
    if let Some(c) = &r.counterexample {
        let scenario_json = crate::json::parse(&crate::link::minimal_json(&c.scenario)).unwrap_or(crate::json::Value::Null);
        o.field("property", &c.failure.property)
            .field("allowed", &c.failure.allowed)
            .field("step", &c.step)
            .field("text", &c.failure.text)
            .field("replays", &c.replays())
            .field("link", &share_link(c))
            .field("scenario", &scenario_json);
    }
    o.end();
    text
}
