// Which schedules the model-based test (model.test.ts) runs: how many, from which seed, for how long.
//
//   npm test             schedules for a time budget (MODEL_BUDGET, default 120 s; at least
//                        MODEL_MIN_SCHEDULES, default 4), seeds from the commit: every commit tries new
//                        schedules, and a re-run of one commit tries the same ones
//   npm run test:deep    MODEL_SCHEDULES (default 200) schedules, seeds from the commit and the date (UTC):
//                        a nightly run of an unchanged commit still tries new ones
//   npm run soak:model   as many as it is told (a count or a duration), seeds as test:deep
//   MODEL_SEED=<n>       the first seed, the others follow it (n, n+1, ...); with MODEL_SCHEDULES=1 it
//                        replays one schedule: replayCommand() is the line a failure prints
// A count or a seed given without a budget runs exactly that many schedules, in either tier.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { TIER, type Tier } from "../support/tier.mjs";
import { REPO } from "./paths";

export interface ModelPlan {
  firstSeed: number;
  /** At most this many schedules. */
  count: number;
  /** Start no new schedule after this long (from the start of the run), once `minimum` have started. */
  budgetMs?: number;
  minimum: number;
  steps: number;
  /** One line for the log: the tier, where the seeds come from, the size. */
  description: string;
}

const DEFAULTS = { steps: 2, ciBudgetS: 120, minimum: 4, count: 200 } as const;

type Env = Record<string, string | undefined>;

/** A positive integer from the environment, or the fallback; anything else is an error saying what to give. */
function integer(env: Env, name: string, fallback: number, minimum = 1): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) < minimum)
    throw new Error(`${name} is "${value}": give a whole number of at least ${minimum}`);
  return Number(value);
}

/** MODEL_BUDGET: seconds ("90"), or a duration ("90s", "20m", "2h"); "none" for no budget. */
export function parseDuration(name: string, value: string): number | undefined {
  if (value === "none") return undefined;
  const match = /^(\d+)(s|m|h)?$/.exec(value);
  if (match === null || Number(match[1]) === 0)
    throw new Error(`${name} is "${value}": give seconds (90) or a duration (90s, 20m, 2h), or "none"`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[(match[2] ?? "s") as "s" | "m" | "h"] * 1000;
}

/** The checkout's commit, or undefined outside a git checkout. */
function commit(): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: REPO,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
}

/** A seed from some text: the first 28 bits of its SHA-256 (a readable number, well inside mulberry32's 32 bits). */
function seedOf(text: string): number {
  return parseInt(createHash("sha256").update(text).digest("hex").slice(0, 7), 16);
}

export function modelPlan(env: Env = process.env, tier: Tier = TIER, now: Date = new Date()): ModelPlan {
  const steps = integer(env, "MODEL_STEPS", DEFAULTS.steps);
  const count = integer(env, "MODEL_SCHEDULES", DEFAULTS.count);
  const explicitSeed = env.MODEL_SEED !== undefined && env.MODEL_SEED !== "";
  const minimum = Math.min(count, integer(env, "MODEL_MIN_SCHEDULES", DEFAULTS.minimum));
  let budgetMs: number | undefined;
  if (env.MODEL_BUDGET !== undefined && env.MODEL_BUDGET !== "")
    budgetMs = parseDuration("MODEL_BUDGET", env.MODEL_BUDGET);
  else if (tier === "ci" && !explicitSeed && (env.MODEL_SCHEDULES ?? "") === "")
    budgetMs = DEFAULTS.ciBudgetS * 1000;

  let firstSeed: number;
  let source: string;
  if (explicitSeed) {
    firstSeed = integer(env, "MODEL_SEED", 1, 0);
    source = "MODEL_SEED";
  } else {
    const sha = commit();
    const day = now.toISOString().slice(0, 10);
    if (tier === "ci" && sha !== undefined) {
      firstSeed = seedOf(sha);
      source = `commit ${sha.slice(0, 12)}`;
    } else {
      firstSeed = seedOf(`${sha ?? "no commit"} ${day}`);
      source = `${sha === undefined ? "no git commit" : `commit ${sha.slice(0, 12)}`} and ${day}`;
    }
  }
  const size =
    budgetMs === undefined
      ? `${count} schedule${count === 1 ? "" : "s"}`
      : `schedules for ${budgetMs / 1000} s (at least ${minimum}, at most ${count})`;
  const description =
    `tier ${tier}: ${size} of ${steps} steps, seeds from ${firstSeed} on (from ${source}); ` +
    `replay one with: ${replayCommand(firstSeed, steps).replace(`MODEL_SEED=${firstSeed}`, "MODEL_SEED=<seed>")}`;
  return { firstSeed, count, ...(budgetMs === undefined ? {} : { budgetMs }), minimum, steps, description };
}

/** The one command that replays the schedule of `seed` from a shell in the checkout (it does its own set-up). */
export function replayCommand(seed: number, steps: number): string {
  return `MODEL_SEED=${seed} MODEL_SCHEDULES=1 MODEL_STEPS=${steps} npm run soak:model`;
}
