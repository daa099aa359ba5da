// The tier selection (tier.mts) and the model-based test's plan (test/e2e/model-plan.ts): what a run
// of each tier is sized to, and that the replay line a violation prints is what a shell runs.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelPlan, parseDuration, replayCommand } from "../e2e/model-plan";
import { requireSupportedNode, tierFromEnv, tierTags } from "./tier.mjs";

describe("tiers", () => {
  it("PWE_TIER is ci when unset or empty, deep when it says so, and anything else is refused with the choices", () => {
    expect(tierFromEnv(undefined)).toBe("ci");
    expect(tierFromEnv("")).toBe("ci");
    expect(tierFromEnv("deep")).toBe("deep");
    expect(() => tierFromEnv("nightly")).toThrow(/PWE_TIER is "nightly": use "ci" .* or "deep"/);
  });

  it("a deep case is skipped in npm test and runs in test:deep", () => {
    expect(tierTags("ci").find((tag) => tag.name === "deep")?.skip).toBe(true);
    expect(tierTags("deep").find((tag) => tag.name === "deep")?.skip).toBe(false);
    expect(tierTags("ci").find((tag) => tag.name === "budgeted")?.skip).toBeUndefined();
  });

  it("refuses a Node.js older than 22.19, saying how to get one", () => {
    expect(() => requireSupportedNode("20.20.2")).toThrow(
      /22\.19\.0 or newer, and this is Node\.js 20\.20\.2: install a newer Node\.js: run `source scripts\/node-env\.sh`/,
    );
    expect(() => requireSupportedNode("22.18.0")).toThrow(/22\.19/);
    expect(() => requireSupportedNode("22.19.0")).not.toThrow();
    expect(() => requireSupportedNode("24.1.0")).not.toThrow();
  });
});

describe("the model-based test's plan", () => {
  const day = new Date("2026-11-25T12:00:00Z");

  it("npm test: a 120 s budget, at least 4 schedules, seeds from the commit (the same on a re-run, whatever the date)", () => {
    const plan = modelPlan({}, "ci", day);
    expect(plan).toMatchObject({ count: 200, budgetMs: 120_000, minimum: 4, steps: 2 });
    expect(modelPlan({}, "ci", new Date("2027-01-01T00:00:00Z")).firstSeed).toBe(plan.firstSeed);
    expect(plan.firstSeed).toBeGreaterThanOrEqual(0);
    expect(plan.firstSeed).toBeLessThan(2 ** 28);
    expect(plan.description).toMatch(
      /^tier ci: schedules for 120 s \(at least 4, at most 200\) of 2 steps, seeds from \d+ on \(from commit [0-9a-f]{12}\)/,
    );
  });

  it("test:deep: 200 schedules without a budget, seeds from the commit and the date", () => {
    const plan = modelPlan({}, "deep", day);
    expect(plan.budgetMs).toBeUndefined();
    expect(plan.count).toBe(200);
    expect(modelPlan({}, "deep", new Date("2026-11-26T12:00:00Z")).firstSeed).not.toBe(plan.firstSeed);
    expect(plan.description).toMatch(/from commit [0-9a-f]{12} and 2026-11-25\)/);
  });

  it("a seed or a count without a budget runs exactly that, in either tier; a budget can be given as a duration", () => {
    const replay = modelPlan({ MODEL_SEED: "123", MODEL_SCHEDULES: "1" }, "ci", day);
    expect(replay).toMatchObject({ firstSeed: 123, count: 1, minimum: 1 });
    expect(replay.budgetMs).toBeUndefined();
    expect(replay.description).toMatch(
      /^tier ci: 1 schedule of 2 steps, seeds from 123 on \(from MODEL_SEED\)/,
    );
    const counted = modelPlan({ MODEL_SCHEDULES: "30" }, "ci", day);
    expect(counted.count).toBe(30);
    expect(counted.budgetMs).toBeUndefined();
    expect(modelPlan({ MODEL_BUDGET: "20m", MODEL_MIN_SCHEDULES: "2" }, "deep", day)).toMatchObject({
      budgetMs: 1_200_000,
      minimum: 2,
    });
    expect(parseDuration("MODEL_BUDGET", "90")).toBe(90_000);
    expect(parseDuration("MODEL_BUDGET", "2h")).toBe(7_200_000);
    expect(parseDuration("MODEL_BUDGET", "none")).toBeUndefined();
  });

  it("refuses values it cannot use, naming the variable and what to give", () => {
    expect(() => modelPlan({ MODEL_SCHEDULES: "ten" }, "ci", day)).toThrow(
      /MODEL_SCHEDULES is "ten": give a whole number of at least 1/,
    );
    expect(() => modelPlan({ MODEL_STEPS: "0" }, "ci", day)).toThrow(/MODEL_STEPS is "0"/);
    expect(() => modelPlan({ MODEL_SEED: "-4" }, "ci", day)).toThrow(/MODEL_SEED is "-4"/);
    expect(() => modelPlan({ MODEL_BUDGET: "3 days" }, "ci", day)).toThrow(
      /MODEL_BUDGET is "3 days": give seconds \(90\) or a duration \(90s, 20m, 2h\), or "none"/,
    );
  });

  it("the replay line a violation prints is, to a shell, npm run soak:model with the seed, one schedule and the steps", () => {
    // The consumer of the line is a POSIX shell: run it with a stand-in npm that reports what it got.
    const dir = mkdtempSync(join(tmpdir(), "pwe-replay-"));
    try {
      writeFileSync(
        join(dir, "npm"),
        '#!/bin/sh\necho "args=$*"\necho "seed=$MODEL_SEED schedules=$MODEL_SCHEDULES steps=$MODEL_STEPS"\n',
      );
      chmodSync(join(dir, "npm"), 0o755);
      const line = replayCommand(67202846, 2);
      const printed = execFileSync("/bin/sh", ["-c", line], {
        env: { PATH: `${dir}:/usr/bin:/bin` },
        encoding: "utf8",
      });
      expect(printed).toBe("args=run soak:model\nseed=67202846 schedules=1 steps=2\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
