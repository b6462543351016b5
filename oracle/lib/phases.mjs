// Timer phases a real cluster drew, measured from its controller's logs, as the simulator's
// `phases` (docs/extensions.md): the driver runs the simulator again with them pinned, so
// that a fence or a heartbeat lands at the same moment on both sides.

/**
 * The phase of the real controller's stale-broker check grid (QuorumController's
 * maybeFenceStaleBroker task, every broker.session.timeout.ms / 8) as the simulator's
 * `phases.fence_check_ms`, from the checks parseFenceChecks read (with `t` from time zero):
 * the last periodic check before the first fence (the grid restarts after a fence, in Kafka
 * as in the simulator), the last one when nothing was fenced. None when the controller's
 * log had no checks.
 */
export function fenceCheckPhase(fenceChecks, config) {
  const period = Math.max(1, Math.floor((config["broker.session.timeout.ms"] ?? 9000) / 8));
  const checks = (fenceChecks ?? []).filter((c) => c.t >= 0);
  if (!checks.length) return null;
  const firstFence = checks.find((c) => c.fenced !== null)?.t ?? Infinity;
  const periodic = checks.filter((c) => c.fenced === null);
  const from = periodic.filter((c) => c.t < firstFence).at(-1) ?? periodic[0];
  if (!from) return null;
  const at = Math.round(from.t);
  return { phase_ms: ((at % period) + period) % period, period_ms: period, from_t: from.t };
}

/**
 * When each broker heartbeats on the real cluster, as the simulator's `phases.heartbeat_ms`
 * (send times: the controller's arrival times less the 1 ms link the oracle runs with).
 * A broker's heartbeats drift by a round trip per beat (BrokerLifecycleManager schedules the
 * next one when the answer arrives), so each is read at the moment it matters: its last
 * heartbeat before the first fault that stops or cuts it (a crash, a pause, a cut between it
 * and the controller other than of its AlterPartition connection alone), else before the run's first fault, else before the end; its first one
 * when none came before. `heartbeats` as the cluster run gives them ({ broker, t } from time
 * zero). None unless every broker heartbeated.
 */
export function heartbeatPhases(heartbeats, plan) {
  const interval = plan.scenario.config["broker.heartbeat.interval.ms"] ?? 2000;
  const latency = 1;
  // A cut of a broker's AlterPartition connection alone leaves its heartbeats alone.
  const touches = (f, b) => f.broker === b || (f.channel !== "alter_partition" && (f.dirs ?? []).some(([x, y]) => (x === "controller" && y === `b${b}`) || (y === "controller" && x === `b${b}`)));
  const phases = [];
  for (let b = 0; b < plan.scenario.replicas; b++) {
    const own = plan.faults.find((f) => f.kind !== "heal" && f.kind !== "restart" && f.kind !== "resume" && touches(f, b));
    const at = own?.at_ms ?? plan.faults[0]?.at_ms ?? plan.scenario.stop_at_ms;
    const times = (heartbeats ?? []).filter((h) => h.broker === b).map((h) => h.t);
    const t = times.filter((x) => x <= at).at(-1) ?? times[0];
    if (t === undefined) return null;
    const send = Math.round(t - latency);
    phases.push(((send % interval) + interval) % interval);
  }
  return { heartbeat_ms: phases, interval_ms: interval };
}
