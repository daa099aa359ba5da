// @ts-check
/**
 * Peak memory and CPU time of a process tree, polled from /proc (Linux only; elsewhere it samples
 * nothing). Used by runProcess({ sample }) for the benchmark's per-process figures, and by any test
 * that wants the peak RSS of a child process.
 */
import { readFileSync, readdirSync } from "node:fs";

/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/**
 * @typedef {object} SampleOptions
 * @property {string} [rootKind] the kind the spawned process itself counts as; default "root"
 * @property {(argv: string[]) => string | undefined} [classify] the kind of a descendant from its
 *   argv; undefined counts it as "other" and re-reads it on the next poll (a shell may exec node
 *   after it was first seen)
 * @property {number} [intervalMs] poll interval; default 100
 */

/**
 * @typedef {object} Sample
 * @property {Record<string, number>} peakRss per kind: the highest VmHWM of any one process, bytes
 * @property {Record<string, number>} cpuSeconds per kind: utime + stime of all its processes
 * @property {Record<string, number>} seen per kind (not "other"): how many processes were classified as it
 * @property {number} reapedCpuSeconds utime + stime of every child this process reaped while sampling (its
 *   children counters, /proc/self/stat): the spawned process with everything it reaped in turn, so exact,
 *   and NaN off Linux. It counts other children of this process that ended meanwhile too: exact for the
 *   spawned tree only when nothing else this process started ends while it runs.
 */

/**
 * Samples the process `rootPid` and its descendants every `intervalMs`. Whatever a process does
 * after the last poll before it exits is missed (at most one interval).
 */
export class ProcSampler {
  #root;
  #rootKind;
  #classify;
  /** @type {Map<number, number>} pid -> parent pid */
  #parents = new Map();
  /** @type {Map<number, string>} pid -> kind */
  #kinds = new Map();
  /** @type {Map<number, number>} pid -> utime + stime, clock ticks */
  #ticks = new Map();
  /** @type {Record<string, number>} */
  #peaks = {};
  /** @type {Record<string, number>} */
  #seen = {};
  #timer;
  #reapedTicksAtStart = reapedTicks();

  /**
   * @param {number} rootPid
   * @param {SampleOptions} [options]
   */
  constructor(rootPid, options = {}) {
    this.#root = rootPid;
    this.#rootKind = options.rootKind ?? "root";
    this.#classify = options.classify ?? (() => undefined);
    this.#kinds.set(rootPid, this.#rootKind);
    this.#seen[this.#rootKind] = 1;
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), options.intervalMs ?? 100);
  }

  /**
   * Stops polling (after one last poll) and returns the figures.
   * @returns {Sample}
   */
  stop() {
    clearInterval(this.#timer);
    this.#tick();
    /** @type {Record<string, number>} */
    const cpuSeconds = {};
    for (const [pid, ticks] of this.#ticks) {
      const kind = this.#kinds.get(pid) ?? "other";
      cpuSeconds[kind] = (cpuSeconds[kind] ?? 0) + ticks / CLOCK_TICKS;
    }
    return {
      peakRss: { ...this.#peaks },
      cpuSeconds,
      seen: { ...this.#seen },
      reapedCpuSeconds: (reapedTicks() - this.#reapedTicksAtStart) / CLOCK_TICKS,
    };
  }

  #tick() {
    let entries;
    try {
      entries = readdirSync("/proc");
    } catch {
      return;
    }
    /** @type {Set<number>} */
    const alive = new Set();
    for (const name of entries) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      alive.add(pid);
      if (!this.#parents.has(pid)) {
        const fields = statFields(pid);
        if (fields !== undefined) this.#parents.set(pid, Number(fields[1]));
      }
    }
    for (const pid of this.#parents.keys()) if (!alive.has(pid)) this.#parents.delete(pid);

    for (const pid of alive) {
      if (pid !== this.#root && !this.#isDescendant(pid)) continue;
      let kind = this.#kinds.get(pid);
      if (kind === undefined || kind === "other") {
        const found = this.#classify(readProc(pid, "cmdline")?.split("\0") ?? []) ?? "other";
        if (found !== kind && found !== "other") this.#seen[found] = (this.#seen[found] ?? 0) + 1;
        kind = found;
        this.#kinds.set(pid, kind);
      }
      const fields = statFields(pid);
      if (fields !== undefined) this.#ticks.set(pid, Number(fields[11]) + Number(fields[12]));
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readProc(pid, "status") ?? "");
      if (hwm) this.#peaks[kind] = Math.max(this.#peaks[kind] ?? 0, Number(hwm[1]) * 1024);
    }
  }

  /** @param {number} pid */
  #isDescendant(pid) {
    for (let current = pid, depth = 0; depth < 32; depth++) {
      const parent = this.#parents.get(current);
      if (parent === undefined || parent <= 1) return false;
      if (parent === this.#root) return true;
      current = parent;
    }
    return false;
  }
}

/**
 * /proc/<pid>/stat fields after the command name (index 0 = state, 1 = ppid, 11 = utime, 12 = stime,
 * 13 = cutime, 14 = cstime).
 * @param {number | "self"} pid
 */
function statFields(pid) {
  const stat = readProc(pid, "stat");
  // The command name is in parentheses and may contain spaces.
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** cutime + cstime of this process: the CPU of the children it reaped (and of theirs), clock ticks; NaN off Linux. */
function reapedTicks() {
  const fields = statFields("self");
  return fields === undefined ? NaN : Number(fields[13]) + Number(fields[14]);
}

/**
 * True while `pid` exists and is not a zombie (an exited child its parent has not reaped yet).
 * @param {number} pid
 */
export function isRunning(pid) {
  const fields = statFields(pid);
  if (fields !== undefined) return fields[0] !== "Z";
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {number | "self"} pid
 * @param {string} file
 */
function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}
