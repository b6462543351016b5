#!/usr/bin/env node
// hwscope oracle: run a scenario on a real Kafka 4.x cluster on 127.0.0.1 and on the
// simulator, and print both side by side with a verdict per observable (issue 16).
//
//   npm run oracle -- SCENARIO.json [--kafka VERSION] [--repeat N] [--json OUT] [--keep]
//                                   [--port-base P] [--refresh]
//
// Exit 0: every comparable observable agrees within its tolerance (a scenario the
//         simulator cannot run yet is reported "not modelled yet" with Kafka's side only,
//         and exits 0 unless --strict);
// exit 1: one observable differs (or Kafka's run failed);
// exit 2: the scenario cannot be run on a real cluster (the event or setting is named).

import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir, cpus, loadavg, release } from "node:os";
import { dirname, join, resolve, basename } from "node:path";
import { fileURLToPath } from "node:url";
import { RESTART_ALLOWANCE_MS, runOnKafka, defaultWorkRoot } from "./lib/cluster.mjs";
import { compare, overload, realObservations, runNoise, simObservations, verdictOf, NOISE_MS, NOISE_MEDIAN_MS } from "./lib/compare.mjs";
import { Unrunnable, compileHarness, resolveKafka, shareWithNodeUsers } from "./lib/kafka.mjs";
import { fenceCheckPhase, heartbeatPhases } from "./lib/phases.mjs";
import { nftAvailable } from "./lib/netfilter.mjs";
import { cleanupAll, installExitHandlers, runSync } from "./lib/procs.mjs";
import { planFor } from "./lib/scenario.mjs";
import { runSimulator } from "./lib/sim.mjs";
import { renderReport } from "./lib/report.mjs";
import { compareKafkaLogs } from "./lib/kafkalog.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");

function usage(code) {
  process.stderr.write(
    "usage: npm run oracle -- SCENARIO.json [--kafka VERSION] [--repeat N] [--json OUT] [--keep] [--port-base P] [--refresh] [--strict] [--nice N]\n",
  );
  process.exit(code);
}

function parseArgs(argv) {
  const o = { files: [], repeat: 1, kafka: null, json: null, keep: false, portBase: Number(process.env.HWSCOPE_ORACLE_PORT_BASE ?? 19500), refresh: false, strict: false, quiet: false, nice: -10 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(2);
      return argv[++i];
    };
    if (a === "--kafka") o.kafka = next();
    else if (a === "--repeat") o.repeat = Number(next());
    else if (a === "--json") o.json = next();
    else if (a === "--keep") o.keep = true;
    else if (a === "--port-base") o.portBase = Number(next());
    else if (a === "--refresh") o.refresh = true;
    else if (a === "--strict") o.strict = true;
    else if (a === "--quiet") o.quiet = true;
    else if (a === "--nice") o.nice = Number(next());
    else if (a === "-h" || a === "--help") usage(0);
    else if (a.startsWith("--")) {
      process.stderr.write(`oracle: unknown option ${a}\n`);
      usage(2);
    } else o.files.push(a);
  }
  if (o.files.length !== 1) usage(2);
  if (!(o.repeat >= 1)) usage(2);
  if (!(o.portBase >= 19000 && o.portBase + 40 <= 19999)) {
    process.stderr.write("oracle: --port-base must leave P..P+40 inside 19000-19999\n");
    process.exit(2);
  }
  return o;
}

export function machine() {
  const c = cpus();
  return { cpu: c[0]?.model?.trim() ?? "?", cores: c.length, kernel: release(), load: loadavg().map((x) => Math.round(x * 100) / 100) };
}

function checkTools() {
  if (process.getuid?.() !== 0)
    throw new Unrunnable("the oracle needs root: each node runs under its own uid (setpriv) and network cuts are nftables rules");
  for (const [tool, args] of [
    ["java", ["-version"]],
    ["javac", ["-version"]],
    ["mvn", ["-v"]],
    ["setpriv", ["--version"]],
  ]) {
    try {
      runSync(tool, args);
    } catch {
      throw new Unrunnable(`${tool} is missing: bash scripts/install-tools.sh --oracle installs it`);
    }
  }
  if (!nftAvailable()) throw new Unrunnable("nft is missing: bash scripts/install-tools.sh --oracle installs nftables");
}

/**
 * Which periodic timer of the real cluster to line up with the simulator's, and where the
 * simulator has it: the heartbeats of the first broker crashed, paused or cut from the
 * controller (its phase from the crash narration; otherwise none), or, when the first
 * fault cuts brokers apart, the first leader's lag check (isr-expiration, from the trace).
 */
function alignmentFor(plan, simObs) {
  const first = plan.faults[0];
  if (!first || !simObs) return null;
  const config = plan.scenario.config;
  // A cut of the AlterPartition connection alone leaves the heartbeats alone.
  const controllerCut = first.channel === "alter_partition" ? null : first.dirs?.find(([a, b]) => a === "controller" || b === "controller");
  if (first.kind === "crash" || first.kind === "pause" || controllerCut) {
    const broker = first.broker ?? Number((controllerCut[0] === "controller" ? controllerCut[1] : controllerCut[0]).slice(1));
    const hb = simObs.heartbeats.find((h) => h.broker === broker);
    if (!hb) return null;
    const interval = config["broker.heartbeat.interval.ms"] ?? 2000;
    return { kind: "heartbeat", broker, phase_ms: hb.last_heartbeat % interval, period_ms: interval };
  }
  if (first.kind === "partition") {
    const period = (config["replica.lag.time.max.ms"] ?? 30000) / 2;
    const check = simObs.isrChecks.find((c) => c.broker === 0);
    if (!check) return null;
    return { kind: "isr-expiration", broker: 0, phase_ms: check.t % period, period_ms: period };
  }
  return null;
}

async function main() {
  installExitHandlers();
  const o = parseArgs(process.argv.slice(2));
  const log = (m) => {
    if (!o.quiet) process.stderr.write(`oracle: ${m}\n`);
  };
  const file = resolve(o.files[0]);
  let raw;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Unrunnable(`${o.files[0]}: ${e.message}`);
  }
  const plan = planFor(raw, { kafkaOverride: o.kafka ? o.kafka.split(".").slice(0, 2).join(".") : null });
  checkTools();
  const resolved = resolveKafka(root, o.kafka ?? plan.kafkaLine, { refresh: o.refresh, log });
  const { kafka, harnessDir: harness } = shareWithNodeUsers(
    resolved,
    compileHarness(resolved, join(here, "harness", "OracleClient.java")),
    { log },
  );
  const simPreset = o.kafka ? `kafka-${plan.kafkaLine}` : null;
  const presetRun = simPreset ?? plan.scenario.preset;

  log(`simulator: hwscope run ${basename(file)}${simPreset ? ` --preset ${simPreset}` : ""}`);
  const produced = plan.recordIds.length;
  // Complete logs in the step records only for small runs (the output grows with steps × log
  // length); larger runs are read with a short tail and their final logs are not compared.
  const fullLogs = produced <= 200;
  const logTail = fullLogs ? Math.max(16, produced + 1) : 8;
  const sim = await runSimulator(root, file, { preset: simPreset, logTail });
  if (!sim.ok && sim.code !== 2) throw new Error(`the simulator failed (exit ${sim.code}): ${sim.error}`);
  const simObs = sim.ok ? { ...simObservations(sim.obs), fullLogs } : null;
  if (!sim.ok) log(`the simulator cannot run this scenario yet: ${sim.error}`);

  const runs = [];
  for (let i = 0; i < o.repeat; i++) {
    log(`Kafka ${kafka.version}: run ${i + 1}/${o.repeat} of ${basename(file)} (${plan.scenario.replicas} brokers, ${(plan.scenario.stop_at_ms / 1000).toFixed(1)} s scripted)`);
    const started = Date.now();
    const real = await runOnKafka(plan, kafka, harness, {
      portBase: o.portBase,
      keep: o.keep,
      log,
      workRoot: defaultWorkRoot(root),
      nice: o.nice,
      alignment: alignmentFor(plan, simObs),
    });
    // Restarts: the simulator's broker is back at once, a real one when its new JVM asks to
    // register. Move the simulator's restart to that moment (and both runs' end by as much).
    // And the controller's stale-broker check runs on a grid whose phase the real cluster
    // drew: pin the simulator's grid to it (phases.fence_check_ms), so a fence lands at the
    // same check on both sides (F1).
    const derived = structuredClone(raw);
    let changed = false;
    let restartShift = null;
    let lateRestart = null;
    if (real.restarts.length) {
      if (real.restarts.every((r) => r.up_t !== null)) {
        let shift = 0;
        for (const ev of derived.events ?? []) {
          if (!ev.restart) continue;
          const r = real.restarts.find((x) => x.broker === ev.restart.broker && x.at_ms === ev.at_ms);
          if (!r) continue;
          const up = Math.ceil(r.up_t);
          shift = Math.max(shift, up - ev.at_ms);
          ev.at_ms = up;
        }
        derived.stop_at_ms = plan.scenario.stop_at_ms + shift;
        restartShift = { restarts: real.restarts, stop_at_ms: derived.stop_at_ms };
        changed = true;
        log(`restarts moved to when the real brokers asked to register: ${real.restarts.map((r) => `b${r.broker} ${r.at_ms} → ${Math.ceil(r.up_t)} ms`).join(", ")}`);
      } else {
        lateRestart = real.restarts.filter((r) => r.up_t === null);
        log(`a restarted broker's JVM did not ask to register within ${RESTART_ALLOWANCE_MS / 1000} s of the scripted end: inconclusive`);
      }
    }
    const checkPhase = sim.ok ? fenceCheckPhase(real.fence_checks, plan.scenario.config) : null;
    if (checkPhase && derived.phases?.fence_check_ms === undefined) {
      derived.phases = { ...derived.phases, fence_check_ms: checkPhase.phase_ms };
      changed = true;
      log(`the simulator's stale-broker check lined up with the real controller's: a check at ${checkPhase.from_t} ms, every ${checkPhase.period_ms} ms (phases.fence_check_ms ${checkPhase.phase_ms})`);
    }
    const beats = sim.ok ? heartbeatPhases(real.heartbeats, plan) : null;
    if (beats && derived.phases?.heartbeat_ms === undefined) {
      derived.phases = { ...derived.phases, heartbeat_ms: beats.heartbeat_ms };
      changed = true;
      log(`every broker's heartbeats lined up with the real ones: phases.heartbeat_ms [${beats.heartbeat_ms.join(", ")}] (every ${beats.interval_ms} ms)`);
    }
    let cmpPlan = plan;
    let cmpSim = simObs;
    if (changed) {
      cmpPlan = planFor(derived, { kafkaOverride: o.kafka ? plan.kafkaLine : null });
      if (sim.ok) {
        const dir = mkdtempSync(join(tmpdir(), "hwscope-oracle-"));
        const f = join(dir, basename(file));
        // The preset the simulator runs is part of the lined-up scenario: its phases are
        // checked against that preset's era (a kafka-0.10 scenario run as 4.0 has heartbeats).
        writeFileSync(f, JSON.stringify(simPreset ? { ...derived, preset: simPreset } : derived, null, 1));
        const sim2 = await runSimulator(root, f, { preset: simPreset, logTail });
        rmSync(dir, { recursive: true, force: true });
        if (!sim2.ok) throw new Error(`the simulator refused the scenario lined up with the real run: ${sim2.error}`);
        cmpSim = { ...simObservations(sim2.obs), fullLogs };
      }
    }
    const noise = runNoise(real.warmup_ack_ms);
    const realObs = realObservations(real, cmpPlan);
    const rows = compare(cmpPlan, realObs, cmpSim, noise);
    const over = overload(rows) ?? (lateRestart ? { late_restart: lateRestart } : null);
    // The broker log: the simulator's lines against the real server.log files (kinds and values).
    const kafkaLog = sim.ok ? compareKafkaLogs(cmpSim.kafkaLog ?? [], real.kafka_log ?? []) : null;
    if (kafkaLog) log(kafkaLog.same ? `broker log: the same ${kafkaLog.compared} entries, in order` : `broker log differs:\n  ${kafkaLog.diffs.join("\n  ")}`);
    if (kafkaLog?.raced) log(`broker log: ${kafkaLog.raced} ISR update(s) the real leader took from metadata before the AlterPartition answer (a race in Kafka, not compared)`);
    runs.push({ kafkaLog, real, realObs, rows, noise, restartShift, checkPhase, beats, overload: over, verdict: !sim.ok ? "not modelled yet" : over ? "inconclusive" : verdictOf(rows, sim.ok), wall_s: Math.round((Date.now() - started) / 100) / 10 });
  }

  const result = {
    scenario: basename(file),
    title: raw.title ?? "",
    preset: plan.scenario.preset,
    sim_preset: presetRun,
    kafka_version: kafka.version,
    machine: machine(),
    date: new Date().toISOString(),
    noise_ms: NOISE_MS,
    noise_median_ms: NOISE_MEDIAN_MS,
    sim: sim.ok ? { steps: sim.obs.steps } : { not_modelled: sim.error },
    runs: runs.map((r) => ({ verdict: r.verdict, kafka_log: r.kafkaLog, overload: r.overload, rows: r.rows, noise: r.noise, restart_shift: r.restartShift, fence_check_phase: r.checkPhase, heartbeat_phases: r.beats, warmup_ack_ms: r.real.warmup_ack_ms, faults: r.real.faults, timings: r.real.timings, wall_s: r.wall_s, follower_reads: r.real.follower_reads, admin: r.real.admin, metadata_brokers: r.realObs.brokers })),
  };
  process.stdout.write(renderReport(result, plan));
  if (o.json) writeFileSync(o.json, JSON.stringify(result, null, 1) + "\n");
  const differ = runs.some((r) => r.verdict === "differ" || r.verdict === "inconclusive");
  const notModelled = !sim.ok;
  cleanupAll();
  process.exit(differ || (notModelled && o.strict) ? 1 : 0);
}

main().catch((e) => {
  if (e instanceof Unrunnable) {
    process.stderr.write(`oracle: cannot run on a real cluster: ${e.message}\n`);
    cleanupAll();
    process.exit(2);
  }
  process.stderr.write(`oracle: ${e.stack ?? e}\n`);
  cleanupAll();
  process.exit(1);
});
