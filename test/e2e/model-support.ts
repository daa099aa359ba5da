// Pieces a model-based end-to-end test needs whatever its actors: seeded randomness, seeds that
// change with every commit unless one is given, a schedule loop bounded by a count and a time
// budget, the model's own notion of "the same endpoint", and reading a file backend's checkpoint
// as the engine wrote it. Used by model-operators.test.ts (model.test.ts keeps its own copies for
// now).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../../src/emulator/random";
import { REPO } from "./paths";

/** The schedule is a function of its seed alone: the emulator's seeded generator, mulberry32. */
export const rng = mulberry32;

/** One item of a non-empty list, chosen by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  if (items.length === 0) throw new Error("pick from an empty list");
  return items[Math.floor(random() * items.length)]!;
}

/**
 * The model's own reading of "the same endpoint" (docs/lifecycle.md, "Stored forms": case, trailing slash,
 * trimming).
 */
export function looseKey(name: string, url: string): string {
  return `${name.trim().toLowerCase()} ${url.trim().toLowerCase().replace(/\/+$/, "")}`;
}

/** The ids a command's output names: notices, refusals, uncertain creates. */
export function idsNamed(text: string): Set<number> {
  const ids = new Set<number>();
  for (const match of text.matchAll(/(?:endpoint|id|ids|adoptWebhookId:)\s+((?:\d+)(?:,\s*\d+)*)/g)) {
    for (const id of match[1]!.split(/,\s*/)) ids.add(Number(id));
  }
  return ids;
}

/**
 * The first seed of a run: `given` when set, else one derived from the commit under test, so that
 * every commit explores schedules no earlier commit ran (and any run can be replayed from the
 * seed it prints). `source` says which.
 */
export function firstSeed(given: string | undefined): { seed: number; source: string } {
  if (given !== undefined && given.trim() !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new Error(`the seed ${JSON.stringify(given)} is not a whole number from 0 to 2^53 - 1`);
    return { seed, source: "given" };
  }
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: REPO,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return { seed: Number.parseInt(head.slice(0, 8), 16), source: `commit ${head.slice(0, 12)}` };
  } catch {
    return { seed: 1, source: "no git commit here: seed 1" };
  }
}

/** Reads a whole number from the environment, with a default; anything else is an error naming the variable. */
export function envCount(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const text = env[name];
  if (text === undefined || text.trim() === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`${name}=${JSON.stringify(text)}: expected a whole number of at least ${min}`);
  return value;
}

/**
 * Which schedules to run: at most `max`, and none started after `budgetMs` once `min` have run.
 * Workers take the next index from one shared counter, so the seeds run are a prefix whatever
 * the timing.
 */
export class ScheduleQueue {
  #next = 0;
  readonly #startedAt = Date.now();
  constructor(
    readonly max: number,
    readonly min: number,
    readonly budgetMs: number,
  ) {}

  /** The next schedule's index, or undefined when the count or the budget is spent. */
  take(): number | undefined {
    if (this.#next >= this.max) return undefined;
    if (this.#next >= this.min && Date.now() - this.#startedAt >= this.budgetMs) return undefined;
    return this.#next++;
  }

  get taken(): number {
    return this.#next;
  }
}

/** A state resource as a file backend's checkpoint holds it. */
export interface CheckpointResource {
  urn: string;
  type: string;
  id?: string;
  provider?: string;
  delete?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

export interface Checkpoint {
  resources: CheckpointResource[];
  pending: { type: string; resource: CheckpointResource }[];
}

/**
 * A stack's latest checkpoint, read from the `file://` backend's own file (not through our code);
 * undefined when there is none yet, or when it cannot be parsed (a kill can leave it so).
 */
export function readCheckpoint(stateDir: string, project: string, stack: string): Checkpoint | undefined {
  const file = join(stateDir, ".pulumi", "stacks", project, `${stack}.json`);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as {
      checkpoint?: {
        latest?: { resources?: CheckpointResource[]; pending_operations?: Checkpoint["pending"] };
      };
    };
    const latest = parsed.checkpoint?.latest;
    return { resources: latest?.resources ?? [], pending: latest?.pending_operations ?? [] };
  } catch {
    return undefined;
  }
}

/** Processes whose working directory is `dir` (Linux): what a killed CLI left behind there. */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of existsSync("/proc") ? readdirSync("/proc") : []) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Waits for `condition` with a deadline; resolves to whether it came true. */
export async function waitFor(condition: () => boolean, deadlineMs: number, everyMs = 20): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return true;
}
