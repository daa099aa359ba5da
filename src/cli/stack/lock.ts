import { readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { connect } from "node:net";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readdirSafe } from "./files";

/**
 * What a killed `pulumi up` leaves behind besides its pending operations:
 * - a lock: the DIY ("file://", s3://, ...) backend keeps a lock file per running update,
 *   `.pulumi/locks/<org>/<project>/<stack>/<uuid>.json` holding `{pid, username, hostname,
 *   timestamp}`, which is never removed when the CLI dies. Every later update, refresh and
 *   `stack import` then fails with "the stack is currently locked"; `pulumi cancel` deletes the files.
 *   Its timestamp is when the interrupted update started: the lower end of recover's window.
 * - provider hosts: the engine's plugins are not its children's children to kill; a dynamic
 *   provider host (and a native plugin) keeps running after the CLI is killed, finishing the creates
 *   it had received. They can never report to the dead engine.
 */
export interface LockInfo {
  pid: number;
  username: string;
  hostname: string;
  /** When the locking update started, in ms since the epoch. */
  startedAt: number;
  file?: string;
}

export type LockVerdict =
  { kind: "stale"; why: string } | { kind: "live"; why: string } | { kind: "unknown"; why: string };

/** The lock files of a stack in a `file://` backend; undefined when the backend is not a local directory. */
export function readFileBackendLocks(
  backendUrl: string,
  project: string,
  stack: string,
): LockInfo[] | undefined {
  const root = localBackendPath(backendUrl);
  if (root === undefined) return undefined;
  const locks = join(root, ".pulumi", "locks");
  const found: LockInfo[] = [];
  // Project-scoped stacks: locks/<org>/<project>/<stack>; the legacy layout: locks/<stack>.
  const dirs = [join(locks, stack), ...subdirs(locks).map((org) => join(org, project, stack))];
  for (const dir of dirs) {
    for (const name of readdirSafe(dir)) {
      if (!name.endsWith(".json")) continue;
      const lock = parseLock(safeRead(join(dir, name)));
      if (lock) found.push({ ...lock, file: join(dir, name) });
    }
  }
  return found;
}

/** Lock contents, as the DIY backend writes them. */
export function parseLock(text: string | undefined): LockInfo | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as {
      pid?: unknown;
      username?: unknown;
      hostname?: unknown;
      timestamp?: unknown;
    };
    const startedAt = typeof parsed.timestamp === "string" ? Date.parse(parsed.timestamp) : NaN;
    if (typeof parsed.pid !== "number" || !Number.isFinite(startedAt)) return undefined;
    return {
      pid: parsed.pid,
      username: typeof parsed.username === "string" ? parsed.username : "",
      hostname: typeof parsed.hostname === "string" ? parsed.hostname : "",
      startedAt,
    };
  } catch {
    return undefined;
  }
}

/**
 * The lock a failing command reported ("...locked by 1 lock(s)... created by user@host (pid 123) at
 * 2026-01-02T03:04:05Z"), for backends whose lock files we cannot read directly.
 */
export function lockFromError(text: string): LockInfo | undefined {
  const match =
    /created by ([^@\s]+)@(\S+) \(pid (\d+)\) at (\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}))/.exec(
      text,
    );
  if (!match) return undefined;
  const startedAt = Date.parse(match[4]!);
  return Number.isFinite(startedAt)
    ? { username: match[1]!, hostname: match[2]!, pid: Number(match[3]), startedAt }
    : undefined;
}

/** Whether the locking run is dead: on this host a gone (or reused) pid says so; elsewhere nothing can. */
export function judgeLock(lock: LockInfo, probe: ProcessProbe = localProcesses): LockVerdict {
  if (lock.hostname !== probe.hostname()) {
    return {
      kind: "unknown",
      why: `the lock was taken on ${lock.hostname} (pid ${lock.pid}), so this machine cannot tell whether that run is still going`,
    };
  }
  const command = probe.commandLine(lock.pid);
  if (command === undefined)
    return { kind: "stale", why: `its process (pid ${lock.pid} on this machine) is gone` };
  if (!/pulumi/.test(command))
    return { kind: "stale", why: `pid ${lock.pid} on this machine is now another program` };
  return { kind: "live", why: `pulumi is still running as pid ${lock.pid} on this machine` };
}

/** A provider host left by a killed CLI, in the project directory. */
export interface OrphanProvider {
  pid: number;
  engine: string;
  kind: "dynamic" | "native";
}

/** What recover asks of the machine: processes and hostname (faked in tests). */
export interface ProcessProbe {
  hostname(): string;
  /** The command line of a running process, or undefined when it does not exist. */
  commandLine(pid: number): string | undefined;
  /** Provider hosts (dynamic or native) whose working directory is `dir`. */
  providerHosts(dir: string): OrphanProvider[];
  /** Whether something accepts connections at host:port. */
  listening(address: string): Promise<boolean>;
  terminate(pid: number): void;
}

const PROVIDER_COMMAND = /(cmd\/dynamic-provider|pulumi-resource-webhooks|dist\/native\/bin\.js)/;

export const localProcesses: ProcessProbe = {
  hostname: () => hostname(),
  commandLine(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
    } catch {
      try {
        process.kill(pid, 0);
        return "(unknown command)";
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "EPERM" ? "(unknown command)" : undefined;
      }
    }
  },
  providerHosts(dir) {
    const found: OrphanProvider[] = [];
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return found;
    }
    for (const entry of readdirSafe("/proc")) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      const args = safeRead(`/proc/${entry}/cmdline`)?.split("\0").filter(Boolean);
      if (args === undefined || !PROVIDER_COMMAND.test(args.join(" "))) continue;
      let cwd: string;
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        continue;
      }
      if (cwd !== real) continue;
      const engine = [...args].reverse().find((arg) => /^[\w.[\]:-]+:\d+$/.test(arg));
      if (engine === undefined) continue;
      found.push({
        pid: Number(entry),
        engine,
        kind: /dynamic-provider/.test(args.join(" ")) ? "dynamic" : "native",
      });
    }
    return found;
  },
  listening(address) {
    const at = address.lastIndexOf(":");
    const host = address.slice(0, at).replace(/^\[|\]$/g, "");
    const port = Number(address.slice(at + 1));
    return new Promise((resolve) => {
      const socket = connect({ host, port });
      const done = (answer: boolean) => {
        socket.destroy();
        resolve(answer);
      };
      socket.setTimeout(1500, () => done(true)); // no answer either way: assume alive, never kill on a guess
      socket.once("connect", () => done(true));
      socket.once("error", (error: NodeJS.ErrnoException) => done(error.code !== "ECONNREFUSED"));
    });
  },
  terminate(pid) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  },
};

/** The directory of a `file://` backend URL (`file://~` is the home directory). */
export function localBackendPath(backendUrl: string): string | undefined {
  if (!backendUrl.startsWith("file://")) return undefined;
  const bare = backendUrl.replace(/\?.*$/, "");
  if (bare === "file://~" || bare.startsWith("file://~/"))
    return join(homedir(), bare.slice("file://~".length));
  try {
    return fileURLToPath(bare);
  } catch {
    return decodeURIComponent(bare.slice("file://".length));
  }
}

function subdirs(dir: string): string[] {
  return readdirSafe(dir)
    .map((name) => join(dir, name))
    .filter((path) => {
      try {
        return statSync(path).isDirectory();
      } catch {
        return false;
      }
    });
}

function safeRead(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
