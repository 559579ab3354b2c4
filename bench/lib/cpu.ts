/**
 * Where a load's CPU time went, from Linux's /proc: each process's user + system time, and the whole
 * machine's busy time. On a 2-core machine shared by the servers, the load generator, PostgreSQL and
 * Redis, this is the profile that says why a second worker does or does not double the throughput.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, or undefined when it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The pids of every process whose command name is `name` (e.g. `redis-server`, `postgres`). */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The machine's busy and total CPU seconds (all cores) so far. */
function machineSeconds(): { busy: number; total: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = values.slice(0, 8).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = ticks[3] + ticks[4];
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

export interface CpuGroups {
  [group: string]: () => number[];
}

export interface CpuReport {
  /** CPU seconds per group over the window. */
  seconds: Record<string, number>;
  /** The machine's busy share over the window (1 = every core busy all the time). */
  machineBusy: number;
  /** Everything else that ran on the machine meanwhile (other groups' processes not listed, other users). */
  otherSeconds: number;
}

/** Starts counting; `stop()` gives each group's CPU seconds since (processes are looked up at both ends). */
export function countCpu(groups: CpuGroups): { stop(): CpuReport } {
  const startMachine = machineSeconds();
  const start = new Map<number, number>();
  for (const pids of Object.values(groups)) for (const pid of pids()) start.set(pid, processCpuSeconds(pid) ?? 0);
  return {
    stop() {
      const end = machineSeconds();
      const seconds: Record<string, number> = {};
      for (const [group, pids] of Object.entries(groups)) {
        // A process born during the window counts from zero.
        seconds[group] = pids().reduce((sum, pid) => sum + Math.max(0, (processCpuSeconds(pid) ?? 0) - (start.get(pid) ?? 0)), 0);
      }
      const busy = end.busy - startMachine.busy;
      const counted = Object.values(seconds).reduce((a, b) => a + b, 0);
      return { seconds, machineBusy: busy / (end.total - startMachine.total), otherSeconds: Math.max(0, busy - counted) };
    },
  };
}

/**
 * Microseconds of CPU per operation of a load that ran `warmup` unmeasured seconds before its
 * `duration` measured ones, from the CPU seconds counted over both and the operations measured.
 */
export function cpuMicrosecondsPer(seconds: number, measured: number, load: { duration: number; warmup: number }): number {
  const operations = (measured * (load.duration + load.warmup)) / load.duration;
  return operations > 0 ? Math.round((seconds * 1e6) / operations) : 0;
}

/** This process's own CPU seconds (user + system) so far: the load generator's share. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}
