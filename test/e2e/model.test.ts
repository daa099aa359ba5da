// Model-based concurrency test: several actors act on one service through the real engine, on
// random schedules from fixed seeds, and after every step the service and every stack's state are
// checked against an independent model of who owns what.
//
// Actors: two stacks (A and B, each with its own token, so the service records which one created
// an endpoint) running `up`, `refresh` and `destroy` with changing declarations drawn from one
// small pool of names and URLs (so they overlap each other and the human); a "human" creating,
// removing and renaming endpoints on the service with a token of their own; seeded faults on
// both API routes during some runs, some of them a gateway answering 502/503/504 after the
// service acted; and runs that overlap (A and B at once, the human acting in the middle of A's
// run). A third of the schedules run against a service that caps its pages at 3 records without
// saying so and ignores the paging position (the emulator's page-cap reading, at a size this small
// pool can fill), where no listing of more than a few endpoints can prove anything absent.
//
// Invariants (the README: "create never duplicates or takes an existing endpoint"), checked after
// every step, derived from that promise and the service's own records, not from our code:
//   1. no stack holds an endpoint it did not create or explicitly adopt (adoptWebhookId);
//   2. no name and URL is created twice by the stacks (up to the forms a service may rewrite:
//      case, a trailing slash, surrounding white space), except where the human renamed one, and
//      except one copy when stacks A and B declared it and applied at the same moment (a race the
//      API leaves no way to close; counted as crossStackRaces, see noteCrossStackRaces);
//   3. every endpoint a stack created is in its state or was reported to it (named in its output).
//
// How many schedules, and which (test/e2e/model-plan.ts; docs/testing.md): npm test runs schedules of
// MODEL_STEPS (default 2) steps for a time budget (at least a few), npm run test:deep hundreds,
// `npm run soak:model` as many as it is told (a count or a duration). The seeds are consecutive from
// a base derived from the commit (test:deep: the commit and the date), printed at the start, so every
// commit tries schedules no earlier run tried. A violation prints the seed, the schedule, the
// commands' output and the one command that replays it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhooksClient } from "../../src/client";
import { startEmulator, type Emulator, type WebhookRecord } from "../../src/emulator";
import { mulberry32 } from "../../src/emulator/random";
import { Project, leaks, type RunResult } from "../../scripts/harness/pulumi.mjs";
import { modelPlan, replayCommand, type ModelPlan } from "./model-plan";
import { backendFor } from "./support";
import { BASE_DIR, REPO } from "./paths";

const PLAN = modelPlan();
const STEPS = PLAN.steps;
const WORKERS = Math.max(1, Math.min(2, Number(process.env.MODEL_WORKERS ?? 2)));

const HUMAN_TOKEN = "model_human_token_5b0c7e";
const STACK_TOKENS = { a: "model_stack_a_token_91d2f3", b: "model_stack_b_token_4e8a61" } as const;
const CREATORS = { human: 1001, a: 2001, b: 2002 } as const;
type StackName = keyof typeof STACK_TOKENS;

const NAMES = ["orders", "payments", "Ledger", "audit"];
const URLS = ["https://a.example/hook", "https://b.example/hooks/", "https://A.example/hook"];

/** The schedule is a function of its seed alone: the emulator's seeded generator, mulberry32. */
const rng = mulberry32;
/**
 * The service's paging reading of a schedule, from its seed, on a stream of its own (the steps' draws are
 * unchanged).
 */
const PAGING_SALT = 0x2c1b3c6d;
/** Records a page of the capped service holds: a size this pool of names and URLs fills within a schedule. */
const PAGE_CAP = 3;

interface Declared {
  resource: string;
  name: string;
  url: string;
  adopt?: number;
}

/**
 * The model's own reading of "the same endpoint" (docs/lifecycle.md, "Stored forms": case, trailing slash,
 * trimming).
 */
function looseKey(name: string, url: string): string {
  return `${name.trim().toLowerCase()} ${url.trim().toLowerCase().replace(/\/+$/, "")}`;
}

/** The ids a command's output names: notices, refusals, uncertain creates. */
function idsNamed(text: string): Set<number> {
  const ids = new Set<number>();
  for (const match of text.matchAll(/(?:endpoint|id|ids|adoptWebhookId:)\s+((?:\d+)(?:,\s*\d+)*)/g)) {
    for (const id of match[1]!.split(/,\s*/)) ids.add(Number(id));
  }
  return ids;
}

class Worker {
  readonly violations: string[] = [];
  readonly transcript: string[] = [];
  readonly stats = {
    schedules: 0,
    steps: 0,
    engineRuns: 0,
    failedRuns: 0,
    faultyRuns: 0,
    concurrentRuns: 0,
    crossStackRaces: 0,
  };
  private emulator!: Emulator;
  private human!: WebhooksClient;
  private readonly backend: ReturnType<typeof backendFor>;
  private stacks!: Record<
    StackName,
    { project: Project; stack: string; declared: Declared[]; reported: Set<number>; adopted: Set<number> }
  >;
  private renamedByHuman = new Set<number>();
  private racedAcrossStacks = new Set<number>();
  private log: string[] = [];

  constructor(private readonly index: number) {
    this.backend = backendFor(`model-${index}`);
  }

  async start(): Promise<void> {
    this.emulator = await startEmulator({
      accessToken: HUMAN_TOKEN,
      creator: { id: CREATORS.human, name: "human" },
      principals: [
        { token: STACK_TOKENS.a, creator: { id: CREATORS.a, name: "stack-a" } },
        { token: STACK_TOKENS.b, creator: { id: CREATORS.b, name: "stack-b" } },
      ],
    });
    this.human = new WebhooksClient({ baseUrl: this.emulator.url, accessToken: HUMAN_TOKEN, maxRetries: 0 });
  }

  async stop(): Promise<void> {
    await this.human.close();
    await this.emulator.close();
  }

  private env(stack: StackName): Record<string, string> {
    return {
      ...this.backend.env,
      WEBHOOKS_BASE_URL: this.emulator.url,
      WEBHOOKS_ACCESS_TOKEN: STACK_TOKENS[stack],
      // A list times out (400 ms) before a slow answer (600 ms); a create waits for its answer
      // (createTimeoutMs, 60 s), so a slow create is answered, never given up on and resent. The
      // settle window covers what an answer lost after the service acted (a 5xx, a gateway's
      // answer, a dropped connection) leaves: the emulator lists a commit at once, so 2 s is ample
      // on a loaded machine; every 5xx and 429 now costs one window, 6 s made schedules slow.
      WEBHOOKS_TIMEOUT_MS: "400",
      WEBHOOKS_CREATE_SETTLE_MS: "2000",
      WEBHOOKS_MAX_RETRIES: "4",
    };
  }

  /** Fresh stacks and an empty service: each schedule replays from its seed alone. */
  private async reset(seed: number): Promise<string> {
    this.emulator.reset();
    const capped = rng(seed ^ PAGING_SALT)() < 1 / 3;
    this.emulator.configure({
      faults: {},
      ...(capped
        ? { paging: "none", pageLimit: "ignored", defaultPageSize: PAGE_CAP, maxPageSize: PAGE_CAP }
        : { paging: "cursor", pageLimit: "honoured", defaultPageSize: 20, maxPageSize: 100 }),
    });
    this.renamedByHuman = new Set();
    this.racedAcrossStacks = new Set();
    this.log = [];
    const dir = join(BASE_DIR, "projects", `model-${this.index}`);
    const make = (stack: StackName) => {
      const project = Project.create(join(REPO, "test/e2e/programs/model"), dir, {
        env: this.env(stack),
        transcript: this.transcript,
      });
      return {
        project,
        stack: `s${seed}-${stack}`,
        declared: [] as Declared[],
        reported: new Set<number>(),
        adopted: new Set<number>(),
      };
    };
    this.stacks = { a: make("a"), b: make("b") };
    for (const name of ["a", "b"] as const) await this.run(name, ["stack", "init", this.stacks[name].stack]);
    return capped ? `[page cap ${PAGE_CAP}] ` : "";
  }

  private async run(stack: StackName, args: string[]): Promise<RunResult> {
    const s = this.stacks[stack];
    const withStack = args[0] === "stack" && args[1] === "init" ? args : [...args, "--stack", s.stack];
    const result = await s.project.run(withStack, this.env(stack));
    const text = `${result.stdout}\n${result.stderr}`;
    for (const id of idsNamed(text)) s.reported.add(id);
    this.log.push(
      `$ [${stack}] pulumi ${withStack.join(" ")} -> ${result.code}\n${text.trim().split("\n").slice(-12).join("\n")}`,
    );
    if (args[0] !== "stack") {
      this.stats.engineRuns++;
      if (result.code !== 0) this.stats.failedRuns++;
    }
    return result;
  }

  private writeConfig(stack: StackName): void {
    const s = this.stacks[stack];
    const file = join(s.project.dir, `Pulumi.${s.stack}.yaml`);
    writeFileSync(
      file,
      `config:\n  webhooks-model:endpoints: ${JSON.stringify(JSON.stringify(s.declared))}\n`,
    );
  }

  private up(stack: StackName): Promise<RunResult> {
    this.writeConfig(stack);
    return this.run(stack, ["up", "--yes", "--skip-preview"]);
  }

  /** Changes a stack's declarations the way a team edits its program. */
  private mutate(stack: StackName, random: () => number): string {
    const s = this.stacks[stack];
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const roll = random();
    if (s.declared.length === 0 || roll < 0.4) {
      const resource = `r${Math.floor(random() * 1000)}`;
      s.declared.push({ resource, name: pick(NAMES), url: pick(URLS) });
      return `declare ${resource}`;
    }
    const target = pick(s.declared);
    if (roll < 0.55) {
      s.declared = s.declared.filter((d) => d !== target);
      return `remove ${target.resource}`;
    }
    if (roll < 0.75) {
      target.url = pick(URLS);
      delete target.adopt;
      return `re-point ${target.resource}`;
    }
    if (roll < 0.85) {
      target.name = pick(NAMES);
      delete target.adopt;
      return `rename ${target.resource}`;
    }
    // Explicit adoption of an endpoint the human made with exactly this name and URL, if any.
    const candidate = this.emulator
      .records()
      .find(
        (r) =>
          r.creator_id === CREATORS.human && r.webhook_name === target.name && r.webhook_url === target.url,
      );
    if (candidate !== undefined) {
      target.adopt = candidate.webhook_id;
      s.adopted.add(candidate.webhook_id);
      return `adopt ${candidate.webhook_id} as ${target.resource}`;
    }
    return "no change";
  }

  private async humanCreate(random: () => number): Promise<string> {
    const name = NAMES[Math.floor(random() * NAMES.length)]!;
    const url = URLS[Math.floor(random() * URLS.length)]!;
    // A person at the service's console: no check for an existing endpoint.
    await this.human
      .create({ webhookName: name, webhookUrl: url }, { allowDuplicate: true })
      .catch(() => undefined);
    return `human creates ${name} ${url}`;
  }

  /**
   * Two stacks that declare the same name and URL and apply at the same moment can both create it:
   * each one's check before create lists the service before the other's create lands, and the API
   * has no uniqueness, no conditional create and no delete, so no client can close that window
   * (docs/reliability.md, "What this cannot prevent"). Such pairs, created by different stacks during one
   * step that ran both at once, are counted rather than reported (one copy per pair); a second
   * create by the same stack, or a duplicate made in any other step, is still a violation.
   */
  private noteCrossStackRaces(existed: ReadonlySet<number>): void {
    const fresh = new Map<string, WebhookRecord[]>();
    for (const record of this.emulator.records()) {
      if (existed.has(record.webhook_id)) continue;
      const key = looseKey(record.webhook_name, record.webhook_url);
      fresh.set(key, [...(fresh.get(key) ?? []), record]);
    }
    for (const group of fresh.values()) {
      const byA = group.filter((r) => r.creator_id === CREATORS.a).map((r) => r.webhook_id);
      const byB = group.filter((r) => r.creator_id === CREATORS.b).map((r) => r.webhook_id);
      if (byA.length === 0 || byB.length === 0) continue;
      this.stats.crossStackRaces++;
      // One of the two stacks' first creates is the race's extra copy; anything beyond stays counted.
      this.racedAcrossStacks.add(Math.max(Math.min(...byA), Math.min(...byB)));
    }
  }

  private humanChange(random: () => number): string {
    const records = this.emulator.records();
    if (records.length === 0) return "human: nothing to change";
    const record = records[Math.floor(random() * records.length)]!;
    if (random() < 0.5) {
      this.emulator.removeRecord(record.webhook_id);
      return `human removes ${record.webhook_id}`;
    }
    this.renamedByHuman.add(record.webhook_id);
    this.emulator.updateRecord(record.webhook_id, { webhook_name: `${record.webhook_name}-renamed` });
    return `human renames ${record.webhook_id}`;
  }

  private async step(random: () => number): Promise<string> {
    const roll = random();
    const which: StackName = random() < 0.6 ? "a" : "b";
    if (roll < 0.4) {
      const change = this.mutate(which, random);
      await this.up(which);
      return `${change}; up ${which}`;
    }
    if (roll < 0.52) {
      this.stats.concurrentRuns++;
      const changes = [this.mutate("a", random), this.mutate("b", random)];
      const existed = new Set(this.emulator.records().map((r) => r.webhook_id));
      await Promise.all([this.up("a"), this.up("b")]);
      this.noteCrossStackRaces(existed);
      return `${changes.join(", ")}; up a and b at once`;
    }
    if (roll < 0.64) {
      this.stats.faultyRuns++;
      const change = this.mutate(which, random);
      const rate = 0.15 + random() * 0.25;
      // Half of these behind a gateway that loses answers after the service acted (503, 502, 504).
      const gateway = random() < 0.5;
      const kinds = gateway ? { kinds: { "gateway-error": 1 } } : {};
      this.emulator.configure({
        seed: Math.floor(random() * 1e9),
        faults: { create: { rate, slowMs: 600, ...kinds }, list: { rate: rate / 3, slowMs: 600, ...kinds } },
      });
      try {
        await this.up(which);
      } finally {
        this.emulator.configure({ faults: {} });
      }
      return `${change}; up ${which} under ${Math.round(rate * 100)}% ${gateway ? "gateway errors" : "faults"}`;
    }
    if (roll < 0.76) {
      // The human creates one of the stack's declared endpoints in the middle of its run.
      this.stats.concurrentRuns++;
      const change = this.mutate(which, random);
      const target = this.stacks[which].declared.at(-1);
      // Half of these runs also lose create answers (a 500 that did nothing, or a dropped
      // connection after the create committed): the case where taking the human's endpoint
      // for ours would be easy.
      const faulty = random() < 0.5;
      if (faulty) {
        this.stats.faultyRuns++;
        // Mostly answers that did nothing (a 500, or a 503), some that committed and were lost.
        this.emulator.configure({
          seed: Math.floor(random() * 1e9),
          faults: {
            create: {
              rate: 0.8,
              slowMs: 600,
              kinds: { "server-error": 3, "drop-after-commit": 1, latency: 1, "gateway-error": 1 },
            },
          },
        });
      }
      const requestsBefore = this.emulator.requests().length;
      let settled = false;
      const running = this.up(which).finally(() => (settled = true));
      try {
        if (target !== undefined) {
          const creating = () =>
            this.emulator
              .requests()
              .slice(requestsBefore)
              .some(
                (r) =>
                  r.route === "create" &&
                  (r.body as { webhook_name?: unknown } | null)?.webhook_name === target.name,
              );
          // Until the stack's create of it reaches the service (the journal shows it), or the run ends
          // without one; a minute at most, however busy the machine.
          const deadline = Date.now() + 60_000;
          while (!creating() && !settled && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 10));
          // At the service's console, at that very moment (no faults on the person's side).
          this.emulator.addRecord({ webhook_name: target.name, webhook_url: target.url });
        }
        await running;
      } finally {
        if (faulty) this.emulator.configure({ faults: {} });
      }
      return `${change}; up ${which}${faulty ? " under lost create answers" : ""} while the human creates ${target?.name ?? "nothing"}`;
    }
    if (roll < 0.82) return this.humanCreate(random);
    if (roll < 0.87) return this.humanChange(random);
    if (roll < 0.94) {
      await this.run(which, ["refresh", "--yes", "--skip-preview"]);
      return `refresh ${which}`;
    }
    this.writeConfig(which);
    await this.run(which, ["destroy", "--yes", "--skip-preview"]);
    this.stacks[which].declared = [];
    return `destroy ${which}`;
  }

  /** Ids held in a stack's state, read from the file backend's checkpoint. */
  private held(stack: StackName): number[] {
    const s = this.stacks[stack];
    const file = join(this.backend.dir, "state", ".pulumi", "stacks", "webhooks-model", `${s.stack}.json`);
    if (!existsSync(file)) return [];
    const checkpoint = JSON.parse(readFileSync(file, "utf8")) as {
      checkpoint?: { latest?: { resources?: { type: string; id?: string }[] } };
    };
    return (checkpoint.checkpoint?.latest?.resources ?? [])
      .filter((r) => r.type === "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint" && r.id)
      .map((r) => Number(r.id));
  }

  private check(seed: number, where: string): void {
    const records = new Map<number, WebhookRecord>(this.emulator.records().map((r) => [r.webhook_id, r]));
    const holders = new Map<number, StackName[]>();
    for (const stack of ["a", "b"] as const) {
      const s = this.stacks[stack];
      for (const id of this.held(stack)) {
        holders.set(id, [...(holders.get(id) ?? []), stack]);
        const record = records.get(id);
        // 1. Only what the stack created, or adopted on purpose.
        if (record !== undefined && record.creator_id !== CREATORS[stack] && !s.adopted.has(id)) {
          this.violations.push(
            `seed ${seed} ${where}: stack ${stack} holds endpoint ${id}, created by ${record.creator_name}, never adopted`,
          );
        }
      }
    }
    for (const [id, stacks] of holders) {
      if (stacks.length > 1 && !stacks.every((stack) => this.stacks[stack].adopted.has(id))) {
        this.violations.push(`seed ${seed} ${where}: endpoint ${id} held by stacks ${stacks.join(" and ")}`);
      }
    }
    // 2. No name and URL created twice by the stacks.
    const byKey = new Map<string, number[]>();
    for (const record of records.values()) {
      if (
        record.creator_id === CREATORS.human ||
        this.renamedByHuman.has(record.webhook_id) ||
        this.racedAcrossStacks.has(record.webhook_id)
      )
        continue;
      const key = looseKey(record.webhook_name, record.webhook_url);
      byKey.set(key, [...(byKey.get(key) ?? []), record.webhook_id]);
    }
    for (const [key, ids] of byKey) {
      if (ids.length > 1)
        this.violations.push(
          `seed ${seed} ${where}: "${key}" created ${ids.length} times by the stacks (ids ${ids.join(", ")})`,
        );
    }
    // 3. Every endpoint a stack created is in its state or was named to it.
    for (const stack of ["a", "b"] as const) {
      const held = new Set(this.held(stack));
      for (const record of records.values()) {
        if (record.creator_id !== CREATORS[stack]) continue;
        if (!held.has(record.webhook_id) && !this.stacks[stack].reported.has(record.webhook_id)) {
          this.violations.push(
            `seed ${seed} ${where}: endpoint ${record.webhook_id} created by stack ${stack} is neither in its state nor reported to it`,
          );
        }
      }
    }
  }

  async schedule(seed: number): Promise<void> {
    const reading = await this.reset(seed);
    const random = rng(seed);
    const before = this.violations.length;
    const done: string[] = [];
    for (let i = 0; i < STEPS; i++) {
      done.push(await this.step(random));
      this.stats.steps++;
      this.check(seed, `step ${i + 1} (${done.join(" | ")})`);
      if (this.violations.length > before) break;
    }
    // Nothing secret in anything the commands printed.
    const secrets = [
      ...Object.values(STACK_TOKENS),
      HUMAN_TOKEN,
      ...this.emulator.records().map((r) => r.sign_secret),
    ].filter((s) => s.length >= 8);
    const found = leaks(secrets, this.transcript.slice(-40));
    if (found.length > 0)
      this.violations.push(`seed ${seed}: a secret appeared in the output (${found.join(", ")})`);
    if (this.violations.length > before)
      this.violations.push(
        `seed ${seed}: replay it with\n  ${replayCommand(seed, STEPS)}\n${this.log.join("\n")}`,
      );
    // One line per schedule: what each run covered, and what a replay of the seed must repeat.
    console.log(
      `[model] seed ${seed}: ${reading}${done.join(" | ")}${this.violations.length > before ? "  VIOLATION" : ""}`,
    );
    this.stats.schedules++;
  }
}

/**
 * Hands out the plan's seeds in order to the workers that ask: no more than the plan's count, and
 * none once its time budget is spent, unless fewer than its minimum have started.
 */
class Schedules {
  private next = 0;
  private deadline = Infinity;

  constructor(private readonly plan: ModelPlan) {}

  /** The budget counts from here. */
  start(): void {
    if (this.plan.budgetMs !== undefined) this.deadline = Date.now() + this.plan.budgetMs;
  }

  take(): number | undefined {
    if (this.next >= this.plan.count) return undefined;
    if (this.next >= this.plan.minimum && Date.now() >= this.deadline) return undefined;
    return this.plan.firstSeed + this.next++;
  }

  get started(): number {
    return this.next;
  }
}

describe("model-based concurrency: stacks, a human and faults on one service", { tags: ["budgeted"] }, () => {
  const workers = Array.from({ length: WORKERS }, (_, i) => new Worker(i));
  const schedules = new Schedules(PLAN);
  beforeAll(() => {
    schedules.start();
    console.log(`[model] ${PLAN.description}`);
  });
  afterAll(() => {
    const total = workers.reduce(
      (sum, w) => ({
        schedules: sum.schedules + w.stats.schedules,
        steps: sum.steps + w.stats.steps,
        engineRuns: sum.engineRuns + w.stats.engineRuns,
        failedRuns: sum.failedRuns + w.stats.failedRuns,
        faultyRuns: sum.faultyRuns + w.stats.faultyRuns,
        concurrentRuns: sum.concurrentRuns + w.stats.concurrentRuns,
        crossStackRaces: sum.crossStackRaces + w.stats.crossStackRaces,
      }),
      {
        schedules: 0,
        steps: 0,
        engineRuns: 0,
        failedRuns: 0,
        faultyRuns: 0,
        concurrentRuns: 0,
        crossStackRaces: 0,
      },
    );
    const last = PLAN.firstSeed + schedules.started - 1;
    console.log(
      `[model] seeds ${PLAN.firstSeed} to ${last}: ${JSON.stringify(total)}, violations: ${workers.reduce((n, w) => n + w.violations.length, 0)}`,
    );
  });

  it.concurrent.each(workers.map((worker, index) => ({ worker, index })))(
    "worker $index: every invariant holds after every step",
    async ({ worker }) => {
      await worker.start();
      try {
        for (let seed = schedules.take(); seed !== undefined; seed = schedules.take())
          await worker.schedule(seed);
      } finally {
        await worker.stop();
      }
      expect(worker.violations, worker.violations.join("\n\n")).toEqual([]);
    },
    PLAN.budgetMs === undefined
      ? Math.max(4 * 60 * 60_000, PLAN.count * 60_000)
      : PLAN.budgetMs + 60 * 60_000,
  );

  it("ran the plan: every seed handed out was run, at least the minimum, all of them without a budget", () => {
    const ran = workers.reduce((n, w) => n + w.stats.schedules, 0);
    expect(ran).toBe(schedules.started);
    expect(ran).toBeGreaterThanOrEqual(Math.min(PLAN.minimum, PLAN.count));
    if (PLAN.budgetMs === undefined) expect(ran).toBe(PLAN.count);
  });
});
