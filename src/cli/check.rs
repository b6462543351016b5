//! `hwscope check`: the counterexample explorer on the command line. Parses
//! the bounds, runs the search (on all cores by default: `parallel.rs`),
//! prints the verdict, the counts, the counterexample as a scenario and its
//! share link, or says precisely which bounds held no counterexample.

use super::parallel::{self, Report};
use super::{load_scenario, number, value, Fail};
use crate::check::{describe_bounds, Bounds, Config, Counterexample, FaultMenu, Simulation, Target};
use crate::json::Named;
use crate::scenario::Preset;
use std::time::Instant;

pub use super::CHECK_USAGE as USAGE;

/// What the command was asked.
struct Args {
    config: Config,
    /// Random walks instead of the breadth-first search: (seed, walks, seconds).
    simulate: Option<(u64, Option<u64>, Option<f64>)>,
    threads: usize,
    out: Option<String>,
    itf: Option<String>,
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
    let (mut out, mut json, mut quiet, mut itf) = (None, false, false, None);
    let (mut simulate, mut seed, mut walks, mut seconds, mut replicas) = (false, 1u64, None, None, None);
    let (mut no_controller, mut no_clients) = (false, false);
    let (mut depth_given, mut faults_given, mut records_given) = (false, false, false);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--builtin" => builtin_name = Some(value(args, &mut i, "--builtin")?.to_string()),
            "--preset" => preset = Some(value(args, &mut i, "--preset")?.to_string()),
            "--max-depth" => {
                bounds.max_depth = number(args, &mut i, "--max-depth", "a number of steps")?;
                depth_given = true;
            }
            "--faults" => {
                bounds.faults = number(args, &mut i, "--faults", "a number from 0 to 255")?;
                faults_given = true;
            }
            "--records" => {
                bounds.records = number(args, &mut i, "--records", "a number from 0 to 255")?;
                records_given = true;
            }
            "--simulate" => simulate = true,
            "--seed" => seed = number(args, &mut i, "--seed", "a number from 0 to 2^64 - 1")?,
            "--walks" => walks = Some(number(args, &mut i, "--walks", "a number of walks")?),
            "--seconds" => seconds = Some(number(args, &mut i, "--seconds", "a number of seconds")?),
            "--replicas" => replicas = Some(number::<u32>(args, &mut i, "--replicas", "a number of replicas")?),
            "--no-cut-controller" => no_controller = true,
            "--no-cut-clients" => no_clients = true,
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
            "--no-crash" => menu.crash = false,
            "--no-restart" => menu.restart = false,
            "--cut-controller" => menu.controller = true,
            "--cut-clients" => menu.clients = true,
            "--catch" => menu.catch = number(args, &mut i, "--catch", "a number from 0 to 4")?,
            "--keep-faults" => config.drop_faults = false,
            "--no-symmetry" => config.symmetry = false,
            "--out" => out = Some(value(args, &mut i, "--out")?.to_string()),
            "--itf" => itf = Some(value(args, &mut i, "--itf")?.to_string()),
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
    if let Some(n) = replicas {
        scenario.replicas = n;
        scenario = crate::Scenario::from_json(&scenario.to_json()).map_err(|e| Fail(format!("--replicas: {e}")))?;
    }
    if bounds.max_depth == 0 {
        return Err(Fail("--max-depth: must be 1 or more, got 0".into()));
    }
    let simulate = if simulate {
        // Simulation's wider defaults: what breadth-first search cannot cover.
        if !depth_given {
            bounds.max_depth = 200;
        }
        if !faults_given {
            bounds.faults = 8;
        }
        if !records_given {
            bounds.records = 3;
        }
        menu.controller = !no_controller;
        menu.clients = !no_clients;
        menu.one_way = true;
        if walks.is_none() && seconds.is_none() {
            walks = Some(10_000);
        }
        Some((seed, walks, seconds))
    } else {
        None
    };
    config.bounds = bounds;
    config.menu = menu;
    config.target = target;
    Ok((Args { config, simulate, threads, out, itf, json, quiet }, scenario))
}

pub(crate) fn cmd_check(args: &[String]) -> Result<(), Fail> {
    let (args, scenario) = parse(args)?;
    let start = Instant::now();
    if let Some((seed, walks, seconds)) = args.simulate {
        return simulate(&args, &scenario, seed, walks, seconds, start);
    }
    let report = parallel::search(&args.config, &scenario, args.threads, start, args.quiet || args.json);
    write_files(&args, report.finished.counterexample.as_ref())?;
    if args.json {
        let rate = report.finished.progress.distinct as f64 / report.seconds.max(1e-9);
        let extra: [(&str, &dyn crate::json::ToJson); 3] =
            [("seconds", &report.seconds), ("threads", &report.threads), ("distinct_per_second", &rate)];
        out!("{}", report.finished.to_json(&args.config, &scenario, &extra));
    } else {
        print_report(&args.config, &scenario, &report);
    }
    Ok(())
}

fn print_report(config: &Config, scenario: &crate::Scenario, r: &Report) {
    let f = &r.finished;
    let p = &f.progress;
    out!("hwscope check: {} — {}", scenario.title, config.target.describe());
    out!("bounds: {}", describe_bounds(config, scenario));
    let mut extra = Vec::new();
    if p.pruned > 0 {
        extra.push(format!("{} past the epoch bound, not expanded", p.pruned));
    }
    if p.replayed > 0 {
        extra.push(format!("{} rebuilt by replay to balance threads", p.replayed));
    }
    let counts = format!(
        "{} distinct states, {} transitions, {} levels{}; {:.2} s, {:.0} distinct states/s on {} thread{}; ~{} bytes per distinct state at the peak (estimated)",
        p.distinct,
        p.explored,
        p.depth,
        extra.iter().map(|e| format!(", {e}")).collect::<String>(),
        r.seconds,
        p.distinct as f64 / r.seconds.max(1e-9),
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        p.peak_bytes / p.distinct.max(1)
    );
    out!("verdict: {}", f.sentence(config));
    out!("counts: {counts}");
    if let Some(c) = &f.counterexample {
        print_counterexample(c);
    }
    if let Some(text) = &f.allowed_seen {
        out!("note: a loss the configuration permits was seen (not a counterexample; --allowed makes it one): {text}");
    }
}

/// `--simulate`: random walks until one breaks a property, `walks` have run or `seconds` passed.
fn simulate(
    args: &Args,
    scenario: &crate::Scenario,
    seed: u64,
    walks: Option<u64>,
    seconds: Option<f64>,
    start: Instant,
) -> Result<(), Fail> {
    let mut sim = Simulation::new(args.config.clone(), scenario, seed, walks);
    let mut last = 0.0;
    loop {
        let p = sim.run(20_000);
        let t = start.elapsed().as_secs_f64();
        if !(args.quiet || args.json) && t - last > 1.0 {
            last = t;
            eprintln!(
                "  {:>9} walks  {:>11} steps  {:>8.0} walks/s  {:>9.0} steps/s",
                p.walks,
                p.steps,
                p.walks as f64 / t,
                p.steps as f64 / t
            );
        }
        if p.done || seconds.is_some_and(|s| t >= s) {
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let p = sim.progress();
    let counterexample = sim.counterexample();
    write_files(args, counterexample.as_ref())?;
    let walks_per_second = p.walks as f64 / seconds.max(1e-9);
    let steps_per_second = p.steps as f64 / seconds.max(1e-9);
    if args.json {
        let extra: [(&str, &dyn crate::json::ToJson); 3] =
            [("seconds", &seconds), ("walks_per_second", &walks_per_second), ("steps_per_second", &steps_per_second)];
        out!("{}", sim.to_json(scenario, &extra));
        return Ok(());
    }
    out!("hwscope check --simulate: {} — {}", scenario.title, args.config.target.describe());
    out!("bounds: {}", sim.describe(scenario));
    out!("verdict: {}", sim.sentence());
    out!(
        "counts: {} walks, {} steps (deepest {}, {} ran out of events); {:.2} s, {:.0} walks/s, {:.0} steps/s on 1 thread",
        p.walks,
        p.steps,
        p.deepest,
        p.finished,
        seconds,
        walks_per_second,
        steps_per_second
    );
    if let Some(c) = &counterexample {
        print_counterexample(c);
    }
    if let Some((walk_seed, text)) = &sim.allowed_seen {
        out!("note: a loss the configuration permits was seen in walk seed {walk_seed} (not a counterexample; --allowed makes it one): {text}");
    }
    Ok(())
}

/// `--out`: the counterexample's scenario; `--itf`: its run as an ITF trace, to the violation.
fn write_files(args: &Args, c: Option<&Counterexample>) -> Result<(), Fail> {
    let Some(c) = c else { return Ok(()) };
    if let Some(path) = &args.out {
        std::fs::write(path, crate::link::minimal_json(&c.scenario) + "\n").map_err(|e| Fail(format!("{path}: {e}")))?;
    }
    if let Some(path) = &args.itf {
        let what = format!("hwscope check: a counterexample, {} at step {}", c.failure.property, c.step);
        std::fs::write(path, super::itf::trace(&c.scenario, Some(c.step), &what)).map_err(|e| Fail(format!("{path}: {e}")))?;
    }
    Ok(())
}

fn print_counterexample(c: &Counterexample) {
    out!("why (newest first; * = injected):");
    for w in &c.why {
        out!("  {}step {:>3} t={:>6} ms  {}", if w.injected { "*" } else { " " }, w.step, w.time_ms, w.text);
    }
    let replays = if c.replays() { "✓ replays to the same violation" } else { "✗ DOES NOT REPLAY (a bug: please report it)" };
    out!("scenario ({replays} with `hwscope run`):");
    out!("{}", crate::link::minimal_json(&c.scenario));
    out!("link: #{}", c.link());
}
