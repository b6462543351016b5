// Every process the oracle starts, and the one way to stop them all.
//
// Each child runs in its own process group (spawn `detached`), so a SIGKILL to the
// group also reaches whatever it spawned. Cleanup runs on normal exit, on an
// exception, and on SIGINT/SIGTERM/SIGHUP; it only ever signals the groups it
// started, by their ids.

import { spawn, execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

const groups = new Map(); // pgid -> label
const cleanups = []; // synchronous functions run once at exit (e.g. delete the nft table)
let cleaned = false;

export function track(child, label) {
  if (child.pid) groups.set(child.pid, label);
  child.on("exit", () => groups.delete(child.pid));
  return child;
}

/** Start a process in its own group and remember it. */
export function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { ...opts, detached: true });
  return track(child, opts.label ?? cmd);
}

/** SIGKILL one group (a crash, or the end of a run). */
export function killGroup(pid, signal = "SIGKILL") {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function onCleanup(fn) {
  cleanups.push(fn);
}

export function cleanupAll() {
  if (cleaned) return;
  cleaned = true;
  for (const pid of groups.keys()) killGroup(pid);
  groups.clear();
  for (const fn of cleanups.reverse()) {
    try {
      fn();
    } catch (e) {
      process.stderr.write(`oracle: cleanup: ${e.message}\n`);
    }
  }
}

/** Run cleanup on every way out of the process. */
export function installExitHandlers() {
  process.on("exit", cleanupAll);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(sig, () => {
      process.stderr.write(`\noracle: ${sig}: stopping every process it started\n`);
      cleanupAll();
      process.exit(sig === "SIGINT" ? 130 : 143);
    });
  }
  process.on("uncaughtException", (e) => {
    process.stderr.write(`oracle: ${e.stack ?? e}\n`);
    cleanupAll();
    process.exit(1);
  });
  process.on("unhandledRejection", (e) => {
    process.stderr.write(`oracle: ${e?.stack ?? e}\n`);
    cleanupAll();
    process.exit(1);
  });
}

export function runSync(cmd, args, opts = {}) {
  const stdin = opts.input !== undefined ? "pipe" : "ignore";
  return execFileSync(cmd, args, { encoding: "utf8", stdio: [stdin, "pipe", "pipe"], ...opts });
}

/**
 * Give every thread of every process the oracle started a scheduling priority (nice).
 * Linux keeps nice per thread, so each task of each process in our groups is set;
 * threads created later inherit it. Used once the cluster is up, for the measured
 * window only: a busy shared machine then delays Kafka's threads less.
 */
export function reniceAll(nice) {
  const pgids = new Set(groups.keys());
  const tids = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${d}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (!pgids.has(Number(fields[2]))) continue;
    try {
      for (const t of readdirSync(`/proc/${d}/task`)) tids.push(t);
    } catch {
      // exited
    }
  }
  if (!tids.length) return 0;
  try {
    execFileSync("renice", ["-n", String(nice), "-p", ...tids], { stdio: "ignore" });
  } catch {
    // a thread that exited in between: the others are set
  }
  return tids.length;
}
