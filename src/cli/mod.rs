//! The `hwscope` command line (`src/bin/hwscope.rs` calls its `main`): run a
//! scenario and print its steps, a step as SVG (`svg`), a share link, the
//! presets, a benchmark, documentation figures (`figure`, `render-docs`); and the
//! renderers it prints with (`svg`, `format`, `docfigure`), which other tools
//! reuse (`mdbook-hwscope` calls `docfigure`). Not in the page's WebAssembly.

pub mod docfigure;
pub mod format;
pub mod io;
pub mod itf;
pub mod svg;

use crate::{builtin, Run, Scenario, ScenarioError};
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
use std::process::ExitCode;

const USAGE: &str = "usage:
  hwscope run SCENARIO.json|--builtin NAME [--format jsonl|table|markdown|kafka-log] [--until-ms N] [--preset NAME]
              [--log-tail N]   (lighter records: only the last N entries of each log and list)
              [--itf FILE]     (also writes the run as an ITF trace: Apalache ADR-015, for TLA+ and Quint tools)
              [--show-config]  (first, on stderr: every setting in force and where it comes from)
  hwscope config SCENARIO.json|--builtin NAME [--preset NAME] [--json]
                                   every setting in force: the scenario's, else the preset's default
  hwscope link SCENARIO.json|--builtin NAME [--at N]   print the share-link fragment
  hwscope svg SCENARIO.json|--builtin NAME [--at N]    the state at step N as a standalone SVG
  hwscope scenarios                list the built-in scenarios
  hwscope presets [--defaults]     list the presets and what changed at each; with --defaults,
                                   the Kafka defaults that differ between them
  hwscope figure [BLOCK_FILE]      a ```hwscope block's text (stdin without a file) as a static HTML figure
  hwscope render-docs DIR... [--allow-errors]   draw the hwscope blocks of built HTML pages as static figures
  hwscope render-markdown [--file NAME] [--allow-errors]   Markdown on stdin, each ```hwscope fence
                                   drawn as a static figure, on stdout; errors name NAME:line
  hwscope bench [--seconds S] [--only NAME] [--json]   simulated events per second per built-in scenario
";

/// Prints a line to stdout; a closed pipe (`hwscope … | head`) ends quietly, not in a panic.
macro_rules! out {
    ($($arg:tt)*) => {{
        if !$crate::cli::io::stdout(&format!("{}\n", format_args!($($arg)*))) {
            std::process::exit(0);
        }
    }};
}

/// A line on stderr (through `io`, so the npm package's command line prints it too).
macro_rules! err {
    ($($arg:tt)*) => {{
        $crate::cli::io::stderr(&format!("{}\n", format_args!($($arg)*)));
    }};
}

// The model checker runs on every core (threads): native only.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub mod check;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub mod parallel;

/// `hwscope check` (native only; its usage is in every build's help).
pub const CHECK_USAGE: &str = "  hwscope check SCENARIO.json|--builtin NAME [--max-depth N] [--faults K] [--threads T]
              [--property any|acked-record-lost|replicas-diverged|consumed-record-lost] [--allowed]
              [--records R] [--unflushed U] [--one-way] [--no-cuts] [--no-crash] [--no-restart]
              [--cut-controller] [--cut-clients]
              [--catch C] [--epochs E] [--max-time MS]
              [--max-states N] [--memory MIB] [--keep-faults] [--no-symmetry] [--preset NAME]
              [--replicas N] [--out FILE] [--itf FILE] [--json]
                                   search every schedule and up to K faults for a counterexample
  hwscope check ... --simulate [--seed S] [--walks W] [--seconds T] [--no-cut-controller] [--no-cut-clients]
                                   random walks instead (each draws its depth up to --max-depth (default 200),
                                   faults up to --faults (8), records up to --records (3) and its fault mix);
                                   a walk that breaks a property is shrunk to a short replay";

/// A usage or input error: exit status 2, one line on stderr.
pub(crate) struct Fail(pub(crate) String);

impl From<ScenarioError> for Fail {
    fn from(e: ScenarioError) -> Fail {
        Fail(e.to_string())
    }
}

/// Runs the command line with the process's arguments.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(run_args(&args))
}

/// Runs the command line with these arguments (the program name left out); the exit status.
/// The npm package's `hwscope` (src/wasm_node.rs) calls this too.
pub fn run_args(args: &[String]) -> u8 {
    match run(args) {
        Ok(()) => 0,
        Err(Fail(msg)) => {
            err!("hwscope: {msg}");
            2
        }
    }
}

fn run(args: &[String]) -> Result<(), Fail> {
    // `hwscope COMMAND --help` (or -h) asks for the usage, whatever the command: print it
    // and succeed, as for `hwscope --help`, rather than reading "--help" as an argument.
    if args.iter().skip(1).any(|a| a == "-h" || a == "--help") {
        let check = matches!(args.first().map(String::as_str), Some("check"));
        out!("{}", if check { CHECK_USAGE.to_string() } else { format!("{USAGE}{CHECK_USAGE}") });
        return Ok(());
    }
    match args.first().map(String::as_str) {
        Some("run") => cmd_run(&args[1..]),
        Some("scenarios") => {
            for (name, json) in builtin::BUILTINS {
                let title = Scenario::from_json(json).map(|s| s.title).unwrap_or_default();
                out!("{name:<28} {title}");
            }
            Ok(())
        }
        Some("presets") => cmd_presets(&args[1..]),
        Some("config") => cmd_config(&args[1..]),
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        Some("bench") => cmd_bench(&args[1..]),
        Some("link") => cmd_link(&args[1..]),
        Some("svg") => cmd_svg(&args[1..]),
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        Some("check") => check::cmd_check(&args[1..]),
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        Some(c @ ("check" | "bench")) => Err(Fail(format!("{c} runs natively only: the Rust command line (cargo install hwscope) has it"))),
        Some("figure") => cmd_figure(&args[1..]),
        Some("render-docs") => cmd_render_docs(&args[1..]),
        Some("render-markdown") => cmd_render_markdown(&args[1..]),
        Some("-h" | "--help" | "help") => {
            out!("{USAGE}{}", CHECK_USAGE);
            Ok(())
        }
        _ => Err(Fail(format!("expected a command\n{USAGE}{}", CHECK_USAGE))),
    }
}

/// The number after a flag, or an error naming the flag and what it wants.
pub(crate) fn number<T: std::str::FromStr>(args: &[String], i: &mut usize, flag: &str, what: &str) -> Result<T, Fail> {
    let v = value(args, i, flag)?;
    v.parse::<T>().map_err(|_| Fail(format!("{flag}: must be {what}, got {v:?}")))
}

pub(crate) fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, Fail> {
    *i += 1;
    args.get(*i).map(String::as_str).ok_or_else(|| Fail(format!("{flag} needs a value")))
}

/// Loads the scenario named by a file argument or `--builtin NAME`.
pub(crate) fn load_scenario(file: Option<String>, builtin_name: Option<String>) -> Result<Scenario, Fail> {
    match (file, builtin_name) {
        (Some(path), None) => {
            let text = io::read_to_string(&path).map_err(|e| Fail(format!("{path}: {e}")))?;
            Ok(Scenario::from_json(&text)?)
        }
        (None, Some(name)) => Ok(builtin::load(&name)?),
        _ => Err(Fail(format!("give a scenario file or --builtin NAME\n{USAGE}"))),
    }
}

/// Every preset with what changed at that version; with `--defaults`, the
/// defaults that differ between presets, each with its reason.
fn cmd_presets(args: &[String]) -> Result<(), Fail> {
    let defaults = match args {
        [] => false,
        [a] if a == "--defaults" => true,
        [a, ..] => return Err(Fail(format!("presets: unknown option {a}\n{USAGE}"))),
    };
    if !defaults {
        for p in crate::scenario::Preset::ALL {
            out!("{:<12} {}", p.name(), p.description());
        }
        return Ok(());
    }
    for (i, (p, rows)) in crate::scenario::defaults_table().into_iter().enumerate() {
        if i > 0 {
            out!("");
        }
        out!("{}", p.name());
        for (key, value, note) in rows {
            let shown = if value.is_null() { "-".to_string() } else { value.to_string() };
            out!("  {key:<34} {shown:>6}  {note}");
        }
    }
    out!("");
    out!("producers[] and consumers[] rows are the Java clients' defaults (ProducerConfig, ConsumerConfig at each version).");
    Ok(())
}

/// Applies `--preset NAME` to a loaded scenario.
fn set_preset(scenario: &mut Scenario, name: String) -> Result<(), Fail> {
    use crate::scenario::{Named, Preset};
    scenario.preset = Preset::parse("--preset", &crate::json::Value::String(name))?;
    Ok(())
}

/// The settings a scenario runs with: one line each, or JSON with `--json`.
fn cmd_config(args: &[String]) -> Result<(), Fail> {
    let (mut file, mut builtin_name, mut preset, mut json) = (None, None, None, false);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--builtin" => builtin_name = Some(value(args, &mut i, "--builtin")?.to_string()),
            "--preset" => preset = Some(value(args, &mut i, "--preset")?.to_string()),
            "--json" => json = true,
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\n{USAGE}"))),
            a => file = Some(a.to_string()),
        }
        i += 1;
    }
    let mut scenario = load_scenario(file, builtin_name)?;
    if let Some(p) = preset {
        set_preset(&mut scenario, p)?;
    }
    if json {
        out!("{}", crate::json::to_string(&scenario.config_in_force()));
    } else {
        print_config(&scenario, |line| out!("{line}"));
    }
    Ok(())
}

/// The config in force, a line per setting, after a heading naming the preset.
fn print_config(scenario: &Scenario, mut line: impl FnMut(String)) {
    line(format!("config in force under {}:", scenario.preset.name()));
    for s in scenario.config_in_force() {
        line(format!("  {}", s.line()));
    }
}

/// Prints the share-link fragment; with `--at N`, for step N with its state hash.
fn cmd_link(args: &[String]) -> Result<(), Fail> {
    let (mut file, mut builtin_name, mut at) = (None, None, None);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--builtin" => builtin_name = Some(value(args, &mut i, "--builtin")?.to_string()),
            "--at" => at = Some(number(args, &mut i, "--at", "a step number")?),
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\n{USAGE}"))),
            a => file = Some(a.to_string()),
        }
        i += 1;
    }
    let scenario = load_scenario(file, builtin_name)?;
    let hash = at.map(|n| {
        let mut run = Run::new(scenario.clone());
        run.seek(n);
        crate::link::state_hash(run.record())
    });
    let fragment = crate::link::encode(&scenario, at, hash.as_deref());
    if fragment.len() + 40 > crate::link::MAX_LINK {
        return Err(Fail(format!("the link would be {} characters, over the {} limit", fragment.len(), crate::link::MAX_LINK)));
    }
    out!("#{fragment}");
    Ok(())
}

/// Prints the state at step N (default 0; the last step if the run ends first) as SVG.
fn cmd_svg(args: &[String]) -> Result<(), Fail> {
    let (mut file, mut builtin_name, mut at) = (None, None, 0);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--builtin" => builtin_name = Some(value(args, &mut i, "--builtin")?.to_string()),
            "--at" => at = number(args, &mut i, "--at", "a step number")?,
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\n{USAGE}"))),
            a => file = Some(a.to_string()),
        }
        i += 1;
    }
    let scenario = load_scenario(file, builtin_name)?;
    let title = scenario.title.clone();
    let mut run = Run::new(scenario);
    run.seek(at);
    if !io::stdout(&svg::render(&run.record(), &title)) {
        std::process::exit(0);
    }
    Ok(())
}

/// A block's text (a file, or stdin) as the static figure documentation pages embed.
fn cmd_figure(args: &[String]) -> Result<(), Fail> {
    let text = match args {
        [] => io::stdin().map_err(|e| Fail(format!("stdin: {e}")))?,
        [path] => io::read_to_string(path).map_err(|e| Fail(format!("{path}: {e}")))?,
        _ => return Err(Fail(format!("figure takes one block file (or stdin)\n{USAGE}"))),
    };
    let html = docfigure::figure(&text).map_err(|e| Fail(format!("hwscope block: {e}")))?;
    out!("{html}");
    Ok(())
}

/// Draws the hwscope blocks of built pages (MkDocs, Hugo, Docusaurus output) in place.
/// A block that cannot be drawn becomes an error box in the page and, unless
/// --allow-errors, makes the command fail after every file is written.
fn cmd_render_docs(args: &[String]) -> Result<(), Fail> {
    let allow = args.iter().any(|a| a == "--allow-errors");
    let dirs: Vec<&String> = args.iter().filter(|a| *a != "--allow-errors").collect();
    if dirs.is_empty() || dirs.iter().any(|d| d.starts_with('-')) {
        return Err(Fail(format!("render-docs needs the built site's folder\n{USAGE}")));
    }
    let mut report = docfigure::Report::default();
    for d in dirs {
        docfigure::render_dir(std::path::Path::new(d), &mut report).map_err(|e| Fail(format!("{d}: {e}")))?;
    }
    for w in &report.warnings {
        err!("hwscope: warning: {w}");
    }
    for e in &report.errors {
        err!("hwscope: {e}");
    }
    err!("hwscope render-docs: {} figures in {} pages, {} blocks with errors", report.figures, report.files, report.errors.len());
    if !report.errors.is_empty() && !allow {
        return Err(Fail(format!(
            "{} hwscope blocks cannot be drawn (see above; --allow-errors keeps the error boxes and exits 0)",
            report.errors.len()
        )));
    }
    Ok(())
}

/// A Markdown page's ```hwscope fences drawn as static figures (one-line HTML blocks), for
/// docs tools that hand a plugin the page's Markdown: mkdocs-hwscope runs this command in
/// its WASI build. Each block that cannot be drawn becomes an error box and a line on
/// stderr, `NAME:line: hwscope block: …`; unless --allow-errors the command then fails
/// (exit 2), after writing the page.
fn cmd_render_markdown(args: &[String]) -> Result<(), Fail> {
    let mut name = "(stdin)".to_string();
    let mut allow = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--file" => name = value(args, &mut i, "--file")?.to_string(),
            "--allow-errors" => allow = true,
            other => return Err(Fail(format!("render-markdown: unknown argument {other}\n{USAGE}"))),
        }
        i += 1;
    }
    let md = io::stdin().map_err(|e| Fail(format!("stdin: {e}")))?;
    let mut report = docfigure::Report::default();
    let out = docfigure::rewrite_markdown(&md, |f| docfigure::draw(&name, f, &mut report));
    if !io::stdout(&out) {
        return Ok(());
    }
    for w in &report.warnings {
        err!("hwscope: warning: {w}");
    }
    for e in &report.errors {
        err!("hwscope: {e}");
    }
    if !report.errors.is_empty() && !allow {
        return Err(Fail(format!("{} hwscope blocks cannot be drawn (see above)", report.errors.len())));
    }
    Ok(())
}

fn cmd_run(args: &[String]) -> Result<(), Fail> {
    let mut file = None;
    let mut builtin_name = None;
    let mut fmt = "jsonl".to_string();
    let mut until = None;
    let mut preset = None;
    let mut log_tail = None;
    let mut show_config = false;
    let mut itf_path = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--builtin" => builtin_name = Some(value(args, &mut i, "--builtin")?.to_string()),
            "--itf" => itf_path = Some(value(args, &mut i, "--itf")?.to_string()),
            "--format" => fmt = value(args, &mut i, "--format")?.to_string(),
            "--until-ms" => until = Some(number::<u64>(args, &mut i, "--until-ms", "a number of milliseconds")?),
            "--preset" => preset = Some(value(args, &mut i, "--preset")?.to_string()),
            "--log-tail" => log_tail = Some(number::<usize>(args, &mut i, "--log-tail", "a number of entries")?),
            "--show-config" => show_config = true,
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\n{USAGE}"))),
            a => file = Some(a.to_string()),
        }
        i += 1;
    }
    if !matches!(fmt.as_str(), "jsonl" | "table" | "markdown" | "kafka-log") {
        return Err(Fail(format!("--format: must be jsonl, table, markdown or kafka-log, got {fmt:?}")));
    }
    let mut scenario = load_scenario(file, builtin_name)?;
    if let Some(p) = preset {
        set_preset(&mut scenario, p)?;
    }
    if show_config {
        print_config(&scenario, |line| err!("{line}"));
    }
    if let Some(u) = until {
        scenario.stop_at_ms = u.min(crate::scenario::MAX_TIME_MS);
    }
    if let Some(path) = &itf_path {
        let text = itf::trace(&scenario, None, "hwscope run");
        io::write(path, &text).map_err(|e| Fail(format!("{path}: {e}")))?;
    }
    let mut run = Run::new(scenario);
    run.set_log_tail(log_tail.filter(|&n| n > 0));
    let mut out = io::Buffered::new();
    if fmt == "kafka-log" {
        // What the brokers' and the controller's logs would say, step by step (kafka_log.rs).
        run.for_each_record(|r| {
            for line in &r.kafka_log {
                if !out.push(&format!("{:>9} ms  step {:<5} {line}\n", r.time_ms, r.step)) {
                    std::process::exit(0);
                }
            }
        });
    } else if fmt == "jsonl" {
        run.for_each_record(|r| {
            if !out.push(&r.to_json()) || !out.push("\n") {
                // The reader has gone (`| head`): stop quietly.
                std::process::exit(0);
            }
        });
    } else {
        let mut records = Vec::new();
        run.for_each_record(|r| records.push(r.clone()));
        let text = if fmt == "table" { format::table(&records) } else { format::markdown(&records) };
        if !out.push(&text) {
            std::process::exit(0);
        }
    }
    out.flush();
    Ok(())
}

/// Simulated events per second, natively, for each built-in scenario (narration
/// and step records off: this is the engine's own speed), and peak memory.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn cmd_bench(args: &[String]) -> Result<(), Fail> {
    let mut seconds = 2.0f64;
    let mut json = false;
    let mut only: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--seconds" => {
                let v = value(args, &mut i, "--seconds")?;
                seconds = v.parse().map_err(|_| Fail(format!("--seconds: must be a number, got {v:?}")))?;
            }
            "--json" => json = true,
            "--only" => only = Some(value(args, &mut i, "--only")?.to_string()),
            a => return Err(Fail(format!("bench: unknown option {a}"))),
        }
        i += 1;
    }
    let mut rows = Vec::new();
    for (name, text) in builtin::BUILTINS.iter().filter(|(n, _)| only.as_deref().is_none_or(|o| o == *n)) {
        let scenario = Scenario::from_json(text)?;
        let start = std::time::Instant::now();
        let budget = seconds / builtin::BUILTINS.len() as f64;
        let events = crate::run::bench(&scenario, |_| start.elapsed().as_secs_f64() < budget);
        rows.push((name.to_string(), events, start.elapsed().as_secs_f64()));
    }
    let peak_kib = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<u64>().ok())
    });
    if json {
        use crate::json::{Obj, ToJson};
        // Keys in sorted order, as before.
        let mut text = String::from("{\"native\":[");
        for (i, (n, e, t)) in rows.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            Obj::new(&mut text)
                .field("events", e)
                .field("events_per_second", &(*e as f64 / t))
                .field("scenario", n)
                .field("seconds", t)
                .end();
        }
        text.push_str("],\"peak_rss_kib\":");
        peak_kib.write_json(&mut text);
        text.push('}');
        out!("{text}");
        return Ok(());
    }
    out!("{:<28} {:>12} {:>14}", "scenario", "events", "events/s");
    for (n, e, t) in &rows {
        out!("{n:<28} {e:>12} {:>14.0}", *e as f64 / t);
    }
    if let Some(k) = peak_kib {
        out!("peak memory (VmHWM): {:.1} MiB", k as f64 / 1024.0);
    }
    Ok(())
}
