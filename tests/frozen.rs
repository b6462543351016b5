//! Frozen output: what `hwscope run`, `hwscope svg` and `hwscope link` print for
//! every built-in scenario, under its own preset and under every preset, and the
//! JSON Lines of a corpus of generated scenarios (random presets, behaviour
//! switches, settings, crashes, cuts, consumers and interventions), compared byte
//! for byte with what they printed when this file was last blessed.
//!
//! The small built-ins are kept whole in `tests/frozen/full/` (a failure names the
//! first line that differs); everything else as a digest (FNV-1a 64 of the bytes,
//! with the line and byte counts) in `tests/frozen/*.txt`.
//!
//! When behaviour changes on purpose, re-bless and commit the new files with the
//! change, saying why:
//!
//! ```sh
//! HWSCOPE_BLESS=1 cargo test --test frozen
//! ```
//!
//! To see what changed, dump every output of two commits and diff them:
//!
//! ```sh
//! HWSCOPE_FROZEN_DUMP=/tmp/before cargo test --test frozen   # on the old commit
//! HWSCOPE_FROZEN_DUMP=/tmp/after cargo test --test frozen    # on the new one
//! diff -r /tmp/before /tmp/after | head
//! ```

use hwscope::{Run, Scenario};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every preset `--preset` accepts but the alias `latest`: the core's own table,
/// so a new preset gets its frozen traces (or a failure asking to bless them).
fn presets() -> impl Iterator<Item = &'static str> {
    hwscope::scenario::PRESETS.iter().map(|p| p.name)
}

/// Built-ins small enough to keep whole (under their own preset, JSON Lines).
const KEPT_WHOLE: [&str; 7] =
    ["seed-walkthrough", "kip101-data-loss", "kip101-divergence", "kip279-fast-leader-change", "kafka-7128", "elr", "unclean-election"];

/// Steps at which `svg` and `link` are frozen (past the end means the last step).
const AT: [u64; 12] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 1_000_000];

/// steady-load runs 170,000 steps whose complete records hold logs of up to
/// 10,000 entries each: its frozen runs stop early, and one lighter run goes to the end.
const STEADY_UNTIL_MS: &str = "700";

// ---------------------------------------------------------------------------
// Digests and files.
// ---------------------------------------------------------------------------

/// FNV-1a 64 with the line and byte counts: enough to tell any change.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Digest {
    hash: u64,
    lines: u64,
    bytes: u64,
}

impl Digest {
    fn new() -> Digest {
        Digest { hash: 0xcbf2_9ce4_8422_2325, lines: 0, bytes: 0 }
    }

    fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.hash ^= u64::from(b);
            self.hash = self.hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.lines += data.iter().filter(|&&b| b == b'\n').count() as u64;
        self.bytes += data.len() as u64;
    }

    fn of(data: &[u8]) -> Digest {
        let mut d = Digest::new();
        d.update(data);
        d
    }

    fn text(&self) -> String {
        format!("{:016x} {} lines {} bytes", self.hash, self.lines, self.bytes)
    }
}

fn frozen_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frozen")
}

fn blessing() -> bool {
    std::env::var_os("HWSCOPE_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Where `HWSCOPE_FROZEN_DUMP` asks every output to be written, if anywhere.
fn dump_dir() -> Option<PathBuf> {
    std::env::var_os("HWSCOPE_FROZEN_DUMP").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// One set of frozen outputs (a built-in, or the corpus): name → digest, kept in
/// `tests/frozen/<set>.txt`, one `name: digest` line each.
struct Frozen {
    set: String,
    got: BTreeMap<String, Digest>,
    whole: Vec<(String, Vec<u8>)>,
}

impl Frozen {
    fn new(set: &str) -> Frozen {
        Frozen { set: set.to_string(), got: BTreeMap::new(), whole: Vec::new() }
    }

    fn add(&mut self, name: String, output: &[u8]) {
        if let Some(dir) = dump_dir() {
            let path = dir.join(&self.set).join(name.replace([' ', '/'], "_"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, output).unwrap();
        }
        self.got.insert(name, Digest::of(output));
    }

    fn add_digest(&mut self, name: String, digest: Digest) {
        self.got.insert(name, digest);
    }

    /// Kept whole as well as digested.
    fn keep_whole(&mut self, file: &str, output: &[u8]) {
        self.whole.push((file.to_string(), output.to_vec()));
    }

    /// Compares with the blessed files, or writes them when blessing.
    fn check(self) {
        let manifest = frozen_dir().join(format!("{}.txt", self.set));
        let text: String = self.got.iter().map(|(k, d)| format!("{k}: {}\n", d.text())).collect();
        if blessing() {
            std::fs::create_dir_all(frozen_dir().join("full")).unwrap();
            std::fs::write(&manifest, &text).unwrap();
            for (file, data) in &self.whole {
                std::fs::write(frozen_dir().join("full").join(file), data).unwrap();
            }
            return;
        }
        let mut problems = Vec::new();
        for (file, data) in &self.whole {
            let path = frozen_dir().join("full").join(file);
            let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (bless with HWSCOPE_BLESS=1)", path.display()));
            if &want != data {
                let (w, g) = (String::from_utf8_lossy(&want), String::from_utf8_lossy(data));
                let line = w.lines().zip(g.lines()).position(|(a, b)| a != b).unwrap_or_else(|| w.lines().count().min(g.lines().count()));
                problems.push(format!(
                    "{file}: line {} differs\n  frozen: {}\n  now:    {}",
                    line + 1,
                    shorten(w.lines().nth(line).unwrap_or("(none)")),
                    shorten(g.lines().nth(line).unwrap_or("(none)"))
                ));
            }
        }
        let want =
            std::fs::read_to_string(&manifest).unwrap_or_else(|e| panic!("{}: {e} (bless with HWSCOPE_BLESS=1)", manifest.display()));
        let want: BTreeMap<&str, &str> = want.lines().filter_map(|l| l.split_once(": ")).collect();
        for (k, d) in &self.got {
            match want.get(k.as_str()) {
                Some(w) if *w == d.text() => {}
                Some(w) => problems.push(format!("{k}: frozen {w}, now {}", d.text())),
                None => problems.push(format!("{k}: not frozen (now {})", d.text())),
            }
        }
        for k in want.keys() {
            if !self.got.contains_key(*k) {
                problems.push(format!("{k}: frozen, but no longer produced"));
            }
        }
        assert!(
            problems.is_empty(),
            "{} output(s) of `{}` differ from tests/frozen (HWSCOPE_BLESS=1 re-blesses a deliberate change; \
             HWSCOPE_FROZEN_DUMP=dir writes every output for a diff):\n{}",
            problems.len(),
            self.set,
            problems.join("\n")
        );
    }
}

fn shorten(line: &str) -> String {
    if line.chars().count() > 400 {
        format!("{}…", line.chars().take(400).collect::<String>())
    } else {
        line.to_string()
    }
}

// ---------------------------------------------------------------------------
// The command line.
// ---------------------------------------------------------------------------

/// What `hwscope ARGS` prints (it must succeed).
fn hwscope(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_hwscope")).args(args).output().expect("runs hwscope");
    assert!(out.status.success(), "hwscope {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The digest of what `hwscope ARGS` prints, read as it streams (for long outputs).
fn hwscope_digest(args: &[&str]) -> Digest {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hwscope")).args(args).stdout(Stdio::piped()).spawn().expect("runs hwscope");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut d = Digest::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = stdout.read(&mut buf).expect("reads hwscope's output");
        if n == 0 {
            break;
        }
        d.update(&buf[..n]);
    }
    assert!(child.wait().expect("hwscope ends").success(), "hwscope {}", args.join(" "));
    d
}

fn freeze_builtin(name: &str) {
    let mut f = Frozen::new(name);
    let steady = name == "steady-load";
    let presets = std::iter::once(None).chain(presets().map(Some));
    for preset in presets {
        let mut base = vec!["run", "--builtin", name];
        if let Some(p) = preset {
            base.extend(["--preset", p]);
        }
        if steady {
            base.extend(["--until-ms", STEADY_UNTIL_MS]);
        }
        let label = preset.unwrap_or("own-preset");
        for (form, extra) in [
            ("jsonl", &[][..]),
            ("jsonl --log-tail 64", &["--log-tail", "64"][..]),
            ("table", &["--format", "table"][..]),
            ("markdown", &["--format", "markdown"][..]),
        ] {
            let args: Vec<&str> = base.iter().chain(extra).copied().collect();
            let out = hwscope(&args);
            if preset.is_none() && form == "jsonl" && KEPT_WHOLE.contains(&name) {
                f.keep_whole(&format!("{name}.jsonl"), &out);
            }
            f.add(format!("run {label} {form}"), &out);
        }
    }
    for at in AT {
        let at_text = at.to_string();
        f.add(format!("svg --at {at}"), &hwscope(&["svg", "--builtin", name, "--at", &at_text]));
        if !(steady && at > 1000) {
            f.add(format!("link --at {at}"), &hwscope(&["link", "--builtin", name, "--at", &at_text]));
        }
    }
    f.add("link".into(), &hwscope(&["link", "--builtin", name]));
    if steady {
        // The whole run, in the lightest record form, under its own preset.
        f.add_digest(
            "run own-preset jsonl --log-tail 1 (to the end)".into(),
            hwscope_digest(&["run", "--builtin", name, "--log-tail", "1"]),
        );
    }
    f.check();
}

#[test]
fn frozen_seed_walkthrough() {
    freeze_builtin("seed-walkthrough");
}

#[test]
fn frozen_idle_partition_lag() {
    freeze_builtin("idle-partition-lag");
}

#[test]
fn frozen_slow_follower_isr() {
    freeze_builtin("slow-follower-isr");
}

#[test]
fn frozen_follower_fetch_consumer() {
    freeze_builtin("follower-fetch-consumer");
}

#[test]
fn frozen_acks_and_min_isr() {
    freeze_builtin("acks-and-min-isr");
}

#[test]
fn frozen_kip101_data_loss() {
    freeze_builtin("kip101-data-loss");
}

#[test]
fn frozen_kip101_divergence() {
    freeze_builtin("kip101-divergence");
}

#[test]
fn frozen_kip279_fast_leader_change() {
    freeze_builtin("kip279-fast-leader-change");
}

#[test]
fn frozen_kafka_7128() {
    freeze_builtin("kafka-7128");
}

#[test]
fn frozen_elr() {
    freeze_builtin("elr");
}

#[test]
fn frozen_unclean_election() {
    freeze_builtin("unclean-election");
}

#[test]
fn frozen_temporary_hw_drop() {
    freeze_builtin("temporary-hw-drop");
}

#[test]
fn frozen_zombie_leader() {
    freeze_builtin("zombie-leader");
}

#[test]
fn frozen_bounce_inside_session() {
    freeze_builtin("bounce-inside-session");
}

#[test]
fn frozen_retry_duplicates() {
    freeze_builtin("retry-duplicates");
}

#[test]
fn frozen_retry_through_failover() {
    freeze_builtin("retry-through-failover");
}

#[test]
fn frozen_lagging_read_replica() {
    freeze_builtin("lagging-read-replica");
}

#[test]
fn frozen_steady_load() {
    freeze_builtin("steady-load");
}

/// Every built-in is frozen by a test above.
#[test]
fn every_builtin_is_frozen() {
    let tested = [
        "seed-walkthrough",
        "idle-partition-lag",
        "slow-follower-isr",
        "follower-fetch-consumer",
        "acks-and-min-isr",
        "kip101-data-loss",
        "kip101-divergence",
        "kip279-fast-leader-change",
        "kafka-7128",
        "elr",
        "unclean-election",
        "temporary-hw-drop",
        "zombie-leader",
        "bounce-inside-session",
        "retry-duplicates",
        "retry-through-failover",
        "lagging-read-replica",
        "steady-load",
    ];
    let names: Vec<&str> = hwscope::builtin::names().collect();
    assert_eq!(names, tested);
}

// ---------------------------------------------------------------------------
// A corpus of generated scenarios: every switch, setting and action, mixed.
// ---------------------------------------------------------------------------

/// SplitMix64: the corpus is the same on every machine.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// 0..n
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Scenario `i` of the corpus, as JSON text.
fn corpus_scenario(i: u64) -> String {
    let mut g = Gen(i.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5bd1_e995);
    let presets = ["textbook", "kafka-0.10", "kafka-0.11", "kafka-2.0", "kafka-2.4", "kafka-2.8", "kafka-3.7", "kafka-4.0", "latest"];
    let preset = g.pick(&presets);
    let replicas = g.pick(&[1u64, 2, 3, 3, 3, 4, 5]);
    let stop = g.pick(&[800u64, 2_000, 5_000, 12_000, 20_000]);
    let mut behavior = Vec::new();
    let switches: [(&str, &[&str]); 11] = [
        ("hw_counts", &["\"isr\"", "\"isr-or-caught-up\"", "\"maximal-isr-or-caught-up\"", "\"maximal-isr-or-caught-up-eligible\""]),
        ("hw_held_under_min_isr", &["true", "false"]),
        ("response_hw", &["\"after-fetch\"", "\"before-fetch\""]),
        ("long_poll", &["true", "false"]),
        ("hw_move_completes_follower_fetch", &["true", "false"]),
        ("consumer_fetch_above_hw", &["\"park\"", "\"empty\""]),
        ("follower_hw_completes_consumer_fetch", &["true", "false"]),
        ("follower_fetching", &["true", "false"]),
        ("truncation", &["\"high-watermark\"", "\"epoch-request\"", "\"epoch-request-multi-round\"", "\"diverging-epoch\""]),
        ("leader_epoch_fencing", &["true", "false"]),
        ("isr_update", &["\"immediate\"", "\"alter-partition\""]),
    ];
    for (name, values) in switches {
        if g.chance(20) {
            behavior.push(format!("\"{name}\":{}", g.pick(values)));
        }
    }
    let heartbeat = g.pick(&[100u64, 500, 2_000]);
    let config = format!(
        "\"replica.fetch.wait.max.ms\":{},\"replica.fetch.min.bytes\":{},\"replica.fetch.max.bytes\":{},\"replica.lag.time.max.ms\":{},\
         \"min.insync.replicas\":{},\"unclean.leader.election.enable\":{},\"broker.session.timeout.ms\":{},\"broker.heartbeat.interval.ms\":{},\
         \"replica.socket.timeout.ms\":{},\"replica.fetch.backoff.ms\":{}",
        g.pick(&[0u64, 10, 100, 500, 500]),
        g.pick(&[0u64, 1, 1, 150, 1_000]),
        g.pick(&[100u64, 350, 1_048_576]),
        g.pick(&[200u64, 1_000, 3_000, 30_000]),
        1 + g.below(replicas + 1),
        g.chance(30),
        heartbeat * g.pick(&[1u64, 3, 5]),
        heartbeat,
        g.pick(&[300u64, 2_000, 30_000]),
        g.pick(&[20u64, 200, 1_000]),
    );
    let links: Vec<String> = (0..g.below(3))
        .filter_map(|_| {
            let (a, b) = (g.below(replicas), g.below(replicas));
            (a != b).then(|| format!("{{\"from\":{a},\"to\":{b},\"latency_ms\":{}}}", 1 + g.below(40)))
        })
        .collect();
    let producers: Vec<String> = (0..1 + g.below(2))
        .map(|p| {
            format!(
                "{{\"id\":\"p{}\",\"acks\":{},\"request.timeout.ms\":{}}}",
                p + 1,
                g.pick(&["0", "1", "\"all\"", "\"all\""]),
                g.pick(&[300u64, 2_000, 30_000])
            )
        })
        .collect();
    let consumer = |g: &mut Gen, id: &str| {
        let from = if g.chance(60) { format!(",\"fetch_from\":{}", g.below(replicas)) } else { String::new() };
        let position = if g.chance(30) { ",\"position\":0".to_string() } else { String::new() };
        format!(
            "{{\"id\":\"{id}\"{from}{position},\"fetch.max.wait.ms\":{},\"request.timeout.ms\":{}}}",
            g.pick(&[0u64, 100, 500]),
            g.pick(&[300u64, 2_000, 30_000])
        )
    };
    let consumers: Vec<String> = (0..g.below(4)).map(|c| consumer(&mut g, &format!("c{}", c + 1))).collect();
    let mut events = Vec::new();
    for _ in 0..1 + g.below(20) {
        let at = g.below(stop);
        let b = g.below(replicas);
        let other = (b + 1 + g.below(replicas.max(2) - 1)) % replicas.max(1);
        // Faults often come with their repair a little later.
        let later = at + g.pick(&[1u64, 30, 300, 3_000, 10_000]);
        let action = match g.below(14) {
            0..=3 => {
                let repeat = if g.chance(25) {
                    format!(",\"repeat\":{{\"count\":{},\"every_ms\":{}}}", 2 + g.below(20), 1 + g.below(300))
                } else {
                    String::new()
                };
                format!("\"produce\":{{\"producer\":\"p{}\",\"records\":{}}}{repeat}", 1 + g.below(producers.len() as u64), 1 + g.below(6))
            }
            4..=6 => {
                if g.chance(60) {
                    events.push(format!("{{\"at_ms\":{later},\"restart\":{{\"broker\":{b}}}}}"));
                }
                format!("\"crash\":{{\"broker\":{b},\"unflushed\":{}}}", g.pick(&[0u64, 0, 1, 3]))
            }
            7 => format!("\"restart\":{{\"broker\":{b}}}"),
            8..=10 if replicas > 1 && b != other => {
                let cut = if g.chance(50) { format!("{{\"between\":[{b},{other}]}}") } else { format!("{{\"from\":{b},\"to\":{other}}}") };
                if g.chance(60) {
                    events.push(format!("{{\"at_ms\":{later},\"heal\":{cut}}}"));
                }
                let kind = if g.chance(80) { "partition" } else { "heal" };
                format!("\"{kind}\":{cut}")
            }
            11 => {
                let id = format!("c{}", 1 + g.below(5));
                format!("\"add_consumer\":{}", consumer(&mut g, &id))
            }
            _ => format!("\"produce\":{{\"producer\":\"p1\",\"records\":{}}}", 1 + g.below(3)),
        };
        events.push(format!("{{\"at_ms\":{at},{action}}}"));
    }
    format!(
        "{{\"format\":1,\"seed\":{},\"preset\":\"{preset}\",\"behavior\":{{{}}},\"replicas\":{replicas},\"initial\":{{\"log_end_offset\":{}}},\
         \"config\":{{{config}}},\"record_bytes\":{},\"network\":{{\"latency_ms\":{},\"jitter_ms\":{},\"links\":[{}]}},\
         \"producers\":[{}],\"consumers\":[{}],\"events\":[{}],\"stop_at_ms\":{stop}}}",
        g.next() % 1000,
        behavior.join(","),
        g.pick(&[0u64, 0, 3, 100]),
        g.pick(&[1u64, 100, 100, 1_000]),
        1 + g.below(25),
        g.pick(&[0u64, 0, 3, 20]),
        links.join(","),
        producers.join(","),
        consumers.join(","),
        events.join(",")
    )
}

/// An intervention for the corpus's interactive runs.
fn corpus_intervention(g: &mut Gen, replicas: u64) -> String {
    let b = g.below(replicas);
    let other = (b + 1) % replicas;
    match g.below(6) {
        0 => format!("{{\"crash\":{{\"broker\":{b}}}}}"),
        1 => format!("{{\"restart\":{{\"broker\":{b}}}}}"),
        2 if replicas > 1 => format!("{{\"partition\":{{\"between\":[{b},{other}]}}}}"),
        3 if replicas > 1 => format!("{{\"heal\":{{\"between\":[{b},{other}]}}}}"),
        4 => "{\"add_consumer\":{\"id\":\"late\",\"fetch_from\":0}}".to_string(),
        _ => "{\"produce\":{\"producer\":\"p1\",\"records\":2}}".to_string(),
    }
}

/// Scenario `i` of the corpus of the presets and switches issue 12 added: a
/// generated scenario (its own seeds, 10,000 on) moved to kafka-2.1, 3.8 or 4.1
/// (or kept), with random values for the new switches, and often without the
/// settings whose default depends on the preset, so that those defaults run too.
/// (A separate part, so that the first 320 scenarios stay as they were frozen.)
fn versions_corpus_scenario(i: u64) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&corpus_scenario(10_000 + i)).unwrap();
    let mut g = Gen(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x0012_0012);
    v["preset"] = g.pick(&["kafka-2.1", "kafka-3.8", "kafka-4.1", "kafka-4.1", "kafka-2.0", "kafka-2.8"]).into();
    let switches: [(&str, &[serde_json::Value]); 5] = [
        ("isr_expansion_needs_epoch_start", &[serde_json::Value::Bool(true), serde_json::Value::Bool(false)]),
        ("out_of_range_halts", &[serde_json::Value::Bool(true), serde_json::Value::Bool(false)]),
        ("broker_liveness", &["zookeeper-session".into(), "broker-heartbeat".into()]),
        ("controller_isr_removal_bumps_epoch", &[serde_json::Value::Bool(true), serde_json::Value::Bool(false)]),
        ("eligible_leader_replicas", &[serde_json::Value::Bool(true), serde_json::Value::Bool(false)]),
    ];
    for (name, values) in switches {
        if g.chance(25) {
            v["behavior"][name] = values[g.below(values.len() as u64) as usize].clone();
        }
    }
    let config = v["config"].as_object_mut().unwrap();
    for key in ["replica.lag.time.max.ms", "unclean.leader.election.enable"] {
        if g.chance(50) {
            config.remove(key);
        }
    }
    if g.chance(50) {
        config.insert("zookeeper.session.timeout.ms".into(), g.pick(&[300u64, 1_500, 6_000]).into());
    }
    v.to_string()
}

const CORPUS: u64 = 320;

fn freeze_corpus(part: u64, parts: u64) {
    freeze_scenarios(&format!("corpus-{part}"), (0..CORPUS).filter(|i| i % parts == part), corpus_scenario);
}

fn freeze_scenarios(set: &str, numbers: impl Iterator<Item = u64>, scenario_json: fn(u64) -> String) {
    let mut f = Frozen::new(set);
    for i in numbers {
        let json = scenario_json(i);
        let scenario = match Scenario::from_json(&json) {
            Ok(s) => s,
            Err(e) => {
                f.add(format!("scenario {i:03} error"), e.to_string().as_bytes());
                continue;
            }
        };
        let mut out = Vec::new();
        Run::new(scenario.clone()).for_each_record(|r| {
            out.extend_from_slice(r.to_json().as_bytes());
            out.push(b'\n');
        });
        f.add(format!("scenario {i:03} jsonl"), &out);
        // Every fourth: interventions at the cursor, with seeks back and forth, as the page does.
        if i % 4 == 0 {
            let mut g = Gen(i ^ 0xdead_beef);
            let mut run = Run::new(scenario.clone());
            let mut out = Vec::new();
            for _ in 0..4 {
                run.seek(g.below(60));
                let event = Scenario::event_from_json(&corpus_intervention(&mut g, scenario.replicas as u64)).unwrap();
                match run.apply(&event) {
                    Ok(()) => out.extend_from_slice(run.record().to_json().as_bytes()),
                    Err(e) => out.extend_from_slice(e.to_string().as_bytes()),
                }
                out.push(b'\n');
                run.seek(run.current() + 25);
                out.extend_from_slice(run.record().to_json().as_bytes());
                out.push(b'\n');
            }
            run.seek(1_000_000);
            out.extend_from_slice(run.record().to_json().as_bytes());
            out.push(b'\n');
            out.extend_from_slice(run.shared_scenario().to_json().as_bytes());
            out.push(b'\n');
            f.add(format!("scenario {i:03} interventions"), &out);
        }
    }
    f.check();
}

#[test]
fn frozen_corpus_0() {
    freeze_corpus(0, 4);
}

#[test]
fn frozen_corpus_1() {
    freeze_corpus(1, 4);
}

#[test]
fn frozen_corpus_2() {
    freeze_corpus(2, 4);
}

#[test]
fn frozen_corpus_3() {
    freeze_corpus(3, 4);
}

/// 100 scenarios for the presets and switches of issue 12.
#[test]
fn frozen_corpus_versions() {
    freeze_scenarios("corpus-versions", 0..100, versions_corpus_scenario);
}
