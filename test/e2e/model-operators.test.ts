// Model-based test of operators and other teams sharing two services with the stacks: random schedules of
// actions by several actors on two services, through the real engine and the real `webhooks` bin of
// the packed package, with invariants checked after every step against the services' own records,
// the backends' files and a model of what people meant to do (never against our code's answers).
//
// Actors (each schedule starts from empty services and fresh stacks):
// - stack N: the native provider (a Pulumi YAML program) with two explicit providers, p1 on service
//   S1 and p2 on S2, N's own token on each (secret config); one URL it may declare is built from a
//   secret config value (`hookKey`), so the program marks an input secret;
// - stack D: the dynamic resource on S1 with its own token (the program of model.test.ts);
// - team T: its own token on both services; creates endpoints, some with exactly the name and URL
//   a stack declares, some in the middle of a stack's run;
// - an operator who imports T's endpoints into N (`pulumi import ... --provider p=<urn>` as
//   `webhooks adopt --format import` prints it, or the `import` option as `--format yaml` prints
//   it), adopts T's endpoints into D with adoptWebhookId (from `webhooks adopt --json`) and later
//   removes adoptWebhookId; kills `pulumi up` with SIGKILL during a create (the CLI alone, or its
//   whole process group), after which T creates the same name and URL (sometimes on the other
//   service too), and runs `webhooks recover` (sometimes `--dry-run` first, sometimes only later;
//   when it refuses to guess, the operator picks a candidate, T's included, with `--pick`); runs
//   `webhooks recover` and `webhooks orphans --stack ... --json` at random points, against either
//   service; destroys and refreshes; seeded faults on a service during some runs.
//
// Invariants, after every step (the README's promises: nothing taken from someone else, secrets stay
// secret; docs/operator-cli.md: provenance is recorded, not guessed):
//   1. a stack holds an endpoint only if its own principal created it on that very service, or the
//      operator adopted, imported or picked it there (the model's record of intent); and what the
//      state records of it is that service's endpoint (creator, create time, name), so a pending
//      create matched on the wrong service shows even where ids coincide (both services count ids
//      from 1);
//   2. recover (dry run or not) records, or would record, only endpoints the stack's principal
//      created on the pending create's service, except a --pick; the principal it reports learning
//      on a service is the stack's own there;
//   3. orphans marks `left-behind` / `ours: true` only endpoints the stack's own principal created on
//      that service, that it held there at some point and holds no longer, and that nobody adopted,
//      imported or picked; and it marks every such endpoint (each schedule ends with the operator's
//      audit: orphans wherever a stack left something behind);
//   4. no secret in plaintext: no token, no signing secret, and not N's secret config value, in what
//      any command printed (engine and `webhooks`) or in any file of the backends (state, history,
//      backups);
//   5. no name and URL created twice on a service by one stack's principal;
//   6. every endpoint a stack's principal created is in its state on that service, or was named to
//      it (in what the engine or `webhooks` printed), or is what a killed run's pending create made
//      while the stack awaits recover.
// Also: recover with nothing pending changes nothing the stack holds; `webhooks adopt` succeeds for
// an endpoint that exists and prints a declaration its consumer (a shell, Pulumi YAML) takes.
//
// Size: MODEL_OPS_SCHEDULES schedules of MODEL_OPS_STEPS steps (default 4, then the audit); without
// MODEL_OPS_SCHEDULES, as many as MODEL_OPS_BUDGET_S seconds allow (default 120), at least
// MODEL_OPS_MIN_SCHEDULES (default 2). Seeds start at MODEL_OPS_SEED, else at a number derived from
// the commit under test (printed at the start); a violation prints the one line that replays its
// schedule. MODEL_OPS_WORKERS (1 in npm test, 2 in test:deep, at most 2) run schedules side by side, each with its own
// services, stacks and backends (two workers ran 15 schedules in the 180 s where one ran 7).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WebhooksClient } from "../../src/client";
import { startEmulator, type Emulator, type WebhookRecord } from "../../src/emulator";
import { runProcess } from "../../scripts/harness/process.mjs";
import { PASSPHRASE, Project, leaks, readTree, type RunResult } from "../../scripts/harness/pulumi.mjs";
import {
  ScheduleQueue,
  envCount,
  firstSeed,
  idsNamed,
  looseKey,
  pick,
  processesIn,
  readCheckpoint,
  rng,
  waitFor,
  type Checkpoint,
  type CheckpointResource,
} from "./model-support";
import { TIER } from "../support/tier.mjs";
import { BASE_DIR, REPO } from "./paths";
import { backendFor } from "./support";

const EXPLICIT_SCHEDULES =
  process.env.MODEL_OPS_SCHEDULES !== undefined && process.env.MODEL_OPS_SCHEDULES.trim() !== "";
const MAX_SCHEDULES = envCount(process.env, "MODEL_OPS_SCHEDULES", TIER === "deep" ? 60 : 10_000, 1);
// npm test: a 120 s slice (the other model test runs beside it); npm run test:deep: 60 schedules.
const BUDGET_S = envCount(
  process.env,
  "MODEL_OPS_BUDGET_S",
  EXPLICIT_SCHEDULES || TIER === "deep" ? 1e9 : 120,
);
const MIN_SCHEDULES = Math.min(
  MAX_SCHEDULES,
  envCount(process.env, "MODEL_OPS_MIN_SCHEDULES", EXPLICIT_SCHEDULES ? MAX_SCHEDULES : 2),
);
const STEPS = envCount(process.env, "MODEL_OPS_STEPS", 4, 1);
// One worker in npm test (vitest already runs another end-to-end file beside this one), two in test:deep.
const WORKERS = Math.min(2, envCount(process.env, "MODEL_OPS_WORKERS", TIER === "deep" ? 2 : 1, 1));
const SEED = firstSeed(process.env.MODEL_OPS_SEED);
/** MODEL_OPS_VERBOSE=1 prints every schedule's commands and their output's end, not only a failing one's. */
const VERBOSE = process.env.MODEL_OPS_VERBOSE === "1";

const BIN_DIR = join(BASE_DIR, "node_modules", ".bin");
const WEBHOOKS_BIN = join(BIN_DIR, "webhooks");
const NATIVE_TYPE = "webhooks:index:WebhookEndpoint";
const DYNAMIC_TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";
const N_PROJECT = "webhooks-model-ops";
const D_PROJECT = "webhooks-model";

type Service = "s1" | "s2";
type StackName = "n" | "d";
const SERVICES: readonly Service[] = ["s1", "s2"];
const PROVIDER_OF: Record<Service, string> = { s1: "p1", s2: "p2" };

const TOKENS = {
  human: "mops_human_token_2f7c0a91",
  n: { s1: "mops_n_s1_token_7f3a91c2", s2: "mops_n_s2_token_0b8e44d1" },
  d: "mops_d_s1_token_5c2e9a07",
  t: { s1: "mops_t_s1_token_96d0b3e8", s2: "mops_t_s2_token_4a1f7c55" },
} as const;

const NAMES = ["orders", "payments", "audit"];
const URLS = ["https://a.example/hook", "https://b.example/hooks/", "https://A.example/hook"];
/** N's URL built from its secret config value; the YAML program interpolates it. */
const SECRET_URL = "secret";
const SECRET_URL_YAML = "https://n.example/hook?key=${hookKey}";

/**
 * Tuning for the engine runs: a short timeout, so that slow answers (faults, the kills' slow
 * creates) make ambiguous creates; the settle window stays the default 3 s, longer than any delay
 * the test makes, as the README asks (a create committed after the whole window is a documented
 * duplicate, not a finding).
 */
const TUNING = { WEBHOOKS_TIMEOUT_MS: "1000", WEBHOOKS_MAX_RETRIES: "4" };

interface NativeDecl {
  resource: string;
  service: Service;
  name: string;
  /** A URL, or SECRET_URL. */
  url: string;
  /**
   * What `webhooks adopt --format yaml` printed for it (with the provider added), when declared with the
   * import option.
   */
  snippet?: string;
}

interface DynamicDecl {
  resource: string;
  name: string;
  url: string;
  adopt?: number;
}

interface Held {
  stack: StackName;
  service: Service | undefined;
  id: number;
  resource: CheckpointResource;
}

interface RecoverJson {
  pendingCreates: number;
  services: { service: string; creators: number[]; pendingCreates: number }[];
  recorded: { resourceName: string; urn: string; webhookId: number }[];
  cleared: { resourceName: string }[];
  ambiguous: { resourceName: string; urn: string; candidates: { webhookId: number; creatorId: number }[] }[];
}

interface OrphansJson {
  orphans: { webhookId: number; relation: string; ours: boolean; creatorId: number }[];
}

const STAT_KEYS = [
  "schedules",
  "steps",
  "engineRuns",
  "engineRunsFailed",
  "nUps",
  "dUps",
  "faultyRuns",
  "midRunCreates",
  "teamCreates",
  "importsCommand",
  "importsOption",
  "adoptions",
  "adoptRemovals",
  "kills",
  "killsMissed",
  "killsGroup",
  "recovers",
  "recoversDryRun",
  "recoverRecorded",
  "recoverCleared",
  "recoverAmbiguous",
  "picks",
  "picksOfOthers",
  "recoverFailed",
  "orphansRuns",
  "orphansOurs",
  "orphansNotOurs",
  "destroys",
  "refreshes",
] as const;
type Stats = Record<(typeof STAT_KEYS)[number], number>;
const emptyStats = (): Stats => Object.fromEntries(STAT_KEYS.map((k) => [k, 0])) as Stats;

class Worker {
  readonly violations: string[] = [];
  readonly stats = emptyStats();
  readonly durations: number[] = [];
  private readonly backends: Record<StackName, ReturnType<typeof backendFor>>;
  private readonly dirs: Record<StackName, string>;
  // Per schedule:
  private seed = 0;
  private emulators!: Record<Service, Emulator>;
  private team!: Record<Service, WebhooksClient>;
  private projects!: Record<StackName, Project>;
  private stackNames!: Record<StackName, string>;
  private creators!: { n: Record<Service, number>; d: number; t: Record<Service, number> };
  private hookKey = "";
  private nDecls: NativeDecl[] = [];
  private dDecls: DynamicDecl[] = [];
  /** What the operator adopted, imported or picked, by stack and `service:id`: a record of intent. */
  private intent!: Record<StackName, Map<string, string>>;
  /** `service:id` of every endpoint seen in a stack's state after a step. */
  private everHeld!: Record<StackName, Set<string>>;
  /** Ids named to a stack in what its commands printed. */
  private reported!: Record<StackName, Set<number>>;
  private locked!: Record<StackName, boolean>;
  private transcripts!: Record<StackName, string[]>;
  private log: string[] = [];
  private counter = 0;

  constructor(private readonly index: number) {
    this.backends = { n: backendFor(`model-ops-${index}-n`), d: backendFor(`model-ops-${index}-d`) };
    this.dirs = {
      n: join(BASE_DIR, "projects", `model-ops-${index}-n`),
      d: join(BASE_DIR, "projects", `model-ops-${index}-d`),
    };
  }

  // ---- set-up ---------------------------------------------------------------------------------

  private async reset(seed: number, random: () => number): Promise<void> {
    this.seed = seed;
    this.log = [];
    this.counter = 0;
    this.nDecls = [];
    this.dDecls = [];
    this.intent = { n: new Map(), d: new Map() };
    this.everHeld = { n: new Set(), d: new Set() };
    this.reported = { n: new Set(), d: new Set() };
    this.locked = { n: false, d: false };
    this.transcripts = { n: [], d: [] };
    // Principals: N's and T's ids are equal on both services in half of the schedules (a wrong
    // service then looks right by creator alone), distinct in the other half.
    const same = random() < 0.5;
    this.creators = {
      n: { s1: same ? 3000 : 3001, s2: same ? 3000 : 3002 },
      d: 2001,
      t: { s1: same ? 1500 : 1501, s2: same ? 1500 : 1502 },
    };
    this.hookKey = `hk${Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0")}${seed.toString(16)}`;
    const start = (service: Service) =>
      startEmulator({
        accessToken: TOKENS.human,
        creator: { id: 1001, name: "human" },
        principals: [
          { token: TOKENS.n[service], creator: { id: this.creators.n[service], name: "team-n" } },
          { token: TOKENS.t[service], creator: { id: this.creators.t[service], name: "team-t" } },
          ...(service === "s1"
            ? [{ token: TOKENS.d, creator: { id: this.creators.d, name: "team-d" } }]
            : []),
        ],
      });
    this.emulators = { s1: await start("s1"), s2: await start("s2") };
    this.team = {
      s1: new WebhooksClient({ baseUrl: this.emulators.s1.url, accessToken: TOKENS.t.s1, maxRetries: 0 }),
      s2: new WebhooksClient({ baseUrl: this.emulators.s2.url, accessToken: TOKENS.t.s2, maxRetries: 0 }),
    };
    for (const stack of ["n", "d"] as const) {
      rmSync(this.dirs[stack], { recursive: true, force: true });
      rmSync(join(this.backends[stack].dir, "state"), { recursive: true, force: true });
      mkdirSync(join(this.backends[stack].dir, "state"), { recursive: true });
    }
    this.stackNames = { n: `o${seed}-n`, d: `o${seed}-d` };
    this.projects = {
      n: Project.create(join(REPO, "test/e2e/programs/model-ops-native"), this.dirs.n, {
        env: this.engineEnv("n"),
        transcript: this.transcripts.n,
      }),
      d: Project.create(join(REPO, "test/e2e/programs/model"), this.dirs.d, {
        env: this.engineEnv("d"),
        transcript: this.transcripts.d,
      }),
    };
    this.writeN();
    await this.projects.n.ok(["stack", "init", this.stackNames.n]);
    await this.projects.n.ok([
      "config",
      "set-all",
      "--stack",
      this.stackNames.n,
      "--plaintext",
      `s1BaseUrl=${this.emulators.s1.url}`,
      "--plaintext",
      `s2BaseUrl=${this.emulators.s2.url}`,
      "--secret",
      `s1Token=${TOKENS.n.s1}`,
      "--secret",
      `s2Token=${TOKENS.n.s2}`,
      "--secret",
      `hookKey=${this.hookKey}`,
    ]);
    await this.projects.d.ok(["stack", "init", this.stackNames.d]);
    this.writeD();
  }

  private async teardown(): Promise<void> {
    // What killed runs left behind in the projects (language hosts, provider hosts): started here.
    for (const stack of ["n", "d"] as const)
      for (const pid of processesIn(this.dirs[stack])) killQuietly(pid);
    await Promise.all(SERVICES.map((s) => this.team[s].close()));
    await Promise.all(SERVICES.map((s) => this.emulators[s].close()));
  }

  private engineEnv(stack: StackName): Record<string, string> {
    const common = { ...this.backends[stack].env, ...TUNING };
    if (stack === "n") return { ...common, PATH: `${BIN_DIR}:${process.env.PATH ?? ""}` };
    return { ...common, WEBHOOKS_BASE_URL: this.emulators.s1.url, WEBHOOKS_ACCESS_TOKEN: TOKENS.d };
  }

  private tokenOf(stack: StackName, service: Service): string {
    return stack === "n" ? TOKENS.n[service] : TOKENS.d;
  }

  private principal(stack: StackName, service: Service): number | undefined {
    if (stack === "n") return this.creators.n[service];
    return service === "s1" ? this.creators.d : undefined;
  }

  private secretUrl(): string {
    return SECRET_URL_YAML.replace("${hookKey}", this.hookKey);
  }

  /** The URL a declaration stands for on the service. */
  private urlOf(decl: { url: string }): string {
    return decl.url === SECRET_URL ? this.secretUrl() : decl.url;
  }

  private writeN(): void {
    const base = readFileSync(join(REPO, "test/e2e/programs/model-ops-native/Pulumi.yaml"), "utf8");
    const blocks = this.nDecls.map((d) => {
      if (d.snippet !== undefined) return d.snippet;
      const url = d.url === SECRET_URL ? JSON.stringify(SECRET_URL_YAML) : JSON.stringify(d.url);
      return [
        `  ${d.resource}:`,
        `    type: ${NATIVE_TYPE}`,
        "    properties:",
        `      webhookName: ${JSON.stringify(d.name)}`,
        `      webhookUrl: ${url}`,
        "    options:",
        `      provider: \${${PROVIDER_OF[d.service]}}`,
      ].join("\n");
    });
    writeFileSync(join(this.dirs.n, "Pulumi.yaml"), `${base.trimEnd()}\n${blocks.join("\n")}\n`);
  }

  private writeD(): void {
    if (this.stackNames === undefined || !existsSync(this.dirs.d)) return;
    writeFileSync(
      join(this.dirs.d, `Pulumi.${this.stackNames.d}.yaml`),
      `config:\n  webhooks-model:endpoints: ${JSON.stringify(JSON.stringify(this.dDecls))}\n`,
    );
  }

  // ---- commands -------------------------------------------------------------------------------

  private note(line: string): void {
    this.log.push(line);
  }

  private async pulumi(
    stack: StackName,
    args: string[],
    extras: { signal?: AbortSignal } = {},
  ): Promise<RunResult> {
    const full = [...args, "--stack", this.stackNames[stack]];
    const result = await this.projects[stack].run(
      full,
      {},
      extras.signal ? { signal: extras.signal, killSignal: "SIGKILL" } : {},
    );
    this.heard(stack, `${result.stdout}\n${result.stderr}`);
    this.stats.engineRuns++;
    if (result.code !== 0 && extras.signal === undefined) this.stats.engineRunsFailed++;
    this.note(
      `$ [${stack}] pulumi ${full.join(" ")} -> ${result.signal ?? result.code}\n${tail(result.output, 14)}`,
    );
    return result;
  }

  /** Runs the installed `webhooks` bin in a stack's project, connected to `home` with the stack's token there. */
  private async webhooks(stack: StackName, home: Service, args: string[]): Promise<RunResult> {
    const env = {
      ...this.backends[stack].env,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
      NO_COLOR: "1",
      WEBHOOKS_BASE_URL: this.emulators[home].url,
      WEBHOOKS_ACCESS_TOKEN: this.tokenOf(stack, home),
    };
    const result = await runProcess(WEBHOOKS_BIN, args, { cwd: this.dirs[stack], env });
    this.transcripts[stack].push(
      `$ webhooks ${args.join(" ")}   (home ${home}, exit ${result.code})\n${result.output}`,
    );
    this.heard(stack, result.output);
    this.note(`$ [${stack}] webhooks ${args.join(" ")} (home ${home}) -> ${result.code}\n${summary(result)}`);
    return result;
  }

  private heard(stack: StackName, text: string): void {
    for (const id of idsNamed(text)) this.reported[stack].add(id);
  }

  // ---- the state, as the backend's files hold it ----------------------------------------------

  private checkpoint(stack: StackName): Checkpoint | undefined {
    return readCheckpoint(
      join(this.backends[stack].dir, "state"),
      stack === "n" ? N_PROJECT : D_PROJECT,
      this.stackNames[stack],
    );
  }

  /** The service a state resource's endpoint is on: N's by its explicit provider (p1, p2), D's always S1. */
  private serviceOfResource(stack: StackName, resource: CheckpointResource): Service | undefined {
    if (stack === "d") return "s1";
    const provider = /::pulumi:providers:webhooks::(p[12])::/.exec(resource.provider ?? "")?.[1];
    return provider === "p1" ? "s1" : provider === "p2" ? "s2" : undefined;
  }

  private held(stack: StackName, checkpoint = this.checkpoint(stack)): Held[] {
    const type = stack === "n" ? NATIVE_TYPE : DYNAMIC_TYPE;
    return (checkpoint?.resources ?? [])
      .filter((r) => r.type === type && typeof r.id === "string" && /^\d+$/.test(r.id))
      .map((r) => ({ stack, service: this.serviceOfResource(stack, r), id: Number(r.id), resource: r }));
  }

  /** The name and URL (loose keys) of the pending creates the stack's state holds on `service`. */
  private pendingAddresses(stack: StackName, service: Service): Set<string> {
    const keys = new Set<string>();
    for (const op of this.checkpoint(stack)?.pending ?? []) {
      if (op.type !== "creating" || this.serviceOfResource(stack, op.resource) !== service) continue;
      // A secret input is ciphertext in the checkpoint: the model's own declaration says what it is.
      const resource = op.resource.urn.slice(op.resource.urn.lastIndexOf("::") + 2);
      const decl =
        stack === "n"
          ? this.nDecls.find((d) => d.resource === resource)
          : this.dDecls.find((d) => d.resource === resource);
      const name =
        typeof op.resource.inputs?.webhookName === "string" ? op.resource.inputs.webhookName : decl?.name;
      const url =
        typeof op.resource.inputs?.webhookUrl === "string"
          ? op.resource.inputs.webhookUrl
          : decl === undefined
            ? undefined
            : this.urlOf(decl);
      if (name !== undefined && url !== undefined) keys.add(looseKey(name, url));
    }
    return keys;
  }

  private record(service: Service, id: number): WebhookRecord | undefined {
    return this.emulators[service].records().find((r) => r.webhook_id === id);
  }

  // ---- actions --------------------------------------------------------------------------------

  /**
   * One action, drawn with weights that lean towards what the state makes interesting: orphans when
   * a stack has left something behind, removing an adoptWebhookId when there is one.
   */
  private async step(random: () => number): Promise<string> {
    this.observeHeld();
    const leftBehind = this.leftBehind().length > 0;
    const adopted = this.dDecls.some((d) => d.adopt !== undefined);
    const actions: [number, () => Promise<string>][] = [
      [16, () => this.nUp(random)],
      [8, () => this.dUp(random)],
      [8, () => this.teamCreates(random)],
      [10, () => this.nImport(random)],
      [adopted ? 12 : 8, () => this.dAdopt(random)],
      [18, () => this.killDuringCreate(random() < 0.65 ? "n" : "d", random)],
      [6, () => this.recoverAtRandom(random)],
      [leftBehind ? 20 : 6, () => this.orphans(random)],
      [6, () => this.destroyOrRefresh(random)],
      [5, () => this.bothUp(random)],
    ];
    let roll = random() * actions.reduce((sum, [weight]) => sum + weight, 0);
    for (const [weight, action] of actions) {
      roll -= weight;
      if (roll < 0) return action();
    }
    return actions.at(-1)![1]();
  }

  /** Endpoints a stack held on a service and holds no longer, as `[stack, service]` pairs. */
  private leftBehind(): [StackName, Service][] {
    const found: [StackName, Service][] = [];
    for (const stack of ["n", "d"] as const) {
      const now = new Set(this.held(stack).map((h) => `${h.service ?? "?"}:${h.id}`));
      for (const key of this.everHeld[stack])
        if (!now.has(key)) found.push([stack, key.split(":")[0] as Service]);
    }
    return found;
  }

  /** An operator who finds the stack locked by a killed run runs recover first. */
  private async unlocked(stack: StackName, random: () => number): Promise<string> {
    if (!this.locked[stack]) return "";
    return `${await this.recover(stack, random, random() < 0.3)}; `;
  }

  private freshName(random: () => number): string {
    return `${pick(random, NAMES)}-${++this.counter}`;
  }

  private mutateN(random: () => number): string {
    const roll = random();
    if (this.nDecls.length === 0 || roll < 0.45) {
      const decl: NativeDecl = {
        resource: `r${++this.counter}`,
        service: pick(random, SERVICES),
        name: pick(random, NAMES),
        url: random() < 0.25 ? SECRET_URL : pick(random, URLS),
      };
      this.nDecls.push(decl);
      return `N declares ${decl.resource} (${decl.name}, ${decl.url}) on ${decl.service}`;
    }
    const target = pick(random, this.nDecls);
    if (roll < 0.6) {
      this.nDecls = this.nDecls.filter((d) => d !== target);
      return `N removes ${target.resource}`;
    }
    if (target.snippet !== undefined) return `N keeps ${target.resource}`;
    if (roll < 0.85) {
      target.url = random() < 0.25 ? SECRET_URL : pick(random, URLS);
      return `N re-points ${target.resource} to ${target.url}`;
    }
    target.name = pick(random, NAMES);
    return `N renames ${target.resource} to ${target.name}`;
  }

  private mutateD(random: () => number): string {
    const roll = random();
    if (this.dDecls.length === 0 || roll < 0.45) {
      const decl: DynamicDecl = {
        resource: `r${++this.counter}`,
        name: pick(random, NAMES),
        url: pick(random, URLS),
      };
      this.dDecls.push(decl);
      return `D declares ${decl.resource} (${decl.name}, ${decl.url})`;
    }
    const adopted = this.dDecls.filter((d) => d.adopt !== undefined);
    if (adopted.length > 0 && roll < 0.75) {
      // The operator's later edit: the endpoint is the stack's now, the adoption id is dropped.
      const target = pick(random, adopted);
      this.stats.adoptRemovals++;
      delete target.adopt;
      return `D removes adoptWebhookId from ${target.resource}`;
    }
    const target = pick(random, this.dDecls);
    if (roll < 0.6) {
      this.dDecls = this.dDecls.filter((d) => d !== target);
      return `D removes ${target.resource}`;
    }
    if (roll < 0.85) {
      target.url = pick(random, URLS);
      delete target.adopt;
      return `D re-points ${target.resource} to ${target.url}`;
    }
    target.name = pick(random, NAMES);
    delete target.adopt;
    return `D renames ${target.resource} to ${target.name}`;
  }

  /** `pulumi up`, sometimes under seeded faults on one service, sometimes while T creates the same name and URL. */
  private async up(
    stack: StackName,
    random: () => number,
    target?: { service: Service; name: string; url: string },
  ): Promise<string> {
    const mode = random();
    if (mode < 0.25) {
      this.stats.faultyRuns++;
      const service: Service = stack === "d" ? "s1" : pick(random, SERVICES);
      const rate = 0.15 + random() * 0.3;
      this.emulators[service].configure({
        seed: Math.floor(random() * 1e9),
        faults: { create: { rate, slowMs: 1500 }, list: { rate: rate / 3, slowMs: 1500 } },
      });
      try {
        await this.pulumi(stack, ["up", "--yes", "--skip-preview"]);
      } finally {
        this.emulators[service].configure({ faults: {} });
      }
      return `up ${stack} under ${Math.round(rate * 100)}% faults on ${service}`;
    }
    if (mode < 0.45 && target !== undefined) {
      // T creates the very name and URL in the middle of the stack's create of it.
      this.stats.midRunCreates++;
      const emulator = this.emulators[target.service];
      const since = lastSeq(emulator);
      const running = this.pulumi(stack, ["up", "--yes", "--skip-preview"]);
      const seen = await waitFor(
        () => requestFor(emulator, since, "create", target.name, target.url) !== undefined,
        60_000,
      );
      if (seen) await this.teamCreate(target.service, target.name, target.url);
      await running;
      return `up ${stack} while T creates ${target.name} ${target.url} on ${target.service}${seen ? "" : " (the run sent no create)"}`;
    }
    await this.pulumi(stack, ["up", "--yes", "--skip-preview"]);
    return `up ${stack}`;
  }

  private async nUp(random: () => number): Promise<string> {
    this.stats.nUps++;
    const before = await this.unlocked("n", random);
    const change = this.mutateN(random);
    this.writeN();
    const last = this.nDecls.at(-1);
    const target =
      last === undefined || last.snippet !== undefined
        ? undefined
        : { service: last.service, name: last.name, url: this.urlOf(last) };
    return `${before}${change}; ${await this.up("n", random, target)}`;
  }

  private async dUp(random: () => number): Promise<string> {
    this.stats.dUps++;
    const before = await this.unlocked("d", random);
    const change = this.mutateD(random);
    this.writeD();
    const last = this.dDecls.at(-1);
    const target =
      last === undefined || last.adopt !== undefined
        ? undefined
        : { service: "s1" as const, name: last.name, url: last.url };
    return `${before}${change}; ${await this.up("d", random, target)}`;
  }

  private async teamCreate(service: Service, name: string, url: string): Promise<WebhookRecord | undefined> {
    this.stats.teamCreates++;
    try {
      // Another team at its own console: no check for an existing endpoint.
      const created = await this.team[service].create(
        { webhookName: name, webhookUrl: url },
        { allowDuplicate: true },
      );
      this.note(
        `T created ${created.record.webhookId} (${name}, ${url === this.secretUrl() ? "N's secret URL" : url}) on ${service}`,
      );
      return this.record(service, created.record.webhookId);
    } catch (error) {
      this.note(`T's create of ${name} on ${service} failed: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** T creates an endpoint: half the time exactly a name and URL a stack declares on that service. */
  private async teamCreates(random: () => number): Promise<string> {
    const service = pick(random, SERVICES);
    const declared = [
      ...this.nDecls
        .filter((d) => d.service === service && d.snippet === undefined)
        .map((d) => ({ name: d.name, url: this.urlOf(d) })),
      ...(service === "s1" ? this.dDecls.map((d) => ({ name: d.name, url: d.url })) : []),
    ];
    const { name, url } =
      declared.length > 0 && random() < 0.5
        ? pick(random, declared)
        : { name: pick(random, NAMES), url: pick(random, URLS) };
    const record = await this.teamCreate(service, name, url);
    return `T creates ${record?.webhook_id ?? "nothing"} (${name}) on ${service}`;
  }

  /**
   * An endpoint of T's the operator takes over into `stack` on `service`: preferably one with the
   * name and URL of a declaration the stack could not create (the create refused, naming it), else
   * any; T creates one first when there is none. Never one whose URL holds N's secret.
   */
  private async foreignEndpoint(
    stack: StackName,
    service: Service,
    random: () => number,
  ): Promise<WebhookRecord | undefined> {
    const held = new Set(
      this.held(stack)
        .filter((h) => h.service === service)
        .map((h) => h.id),
    );
    const candidates = this.emulators[service]
      .records()
      .filter(
        (r) =>
          r.creator_id === this.creators.t[service] &&
          !held.has(r.webhook_id) &&
          !r.webhook_url.includes(this.hookKey),
      );
    const declared =
      stack === "n"
        ? this.nDecls.filter((d) => d.service === service).map((d) => looseKey(d.name, this.urlOf(d)))
        : this.dDecls.map((d) => looseKey(d.name, d.url));
    const wanted = candidates.filter((r) => declared.includes(looseKey(r.webhook_name, r.webhook_url)));
    if (wanted.length > 0 && random() < 0.7) return pick(random, wanted);
    if (candidates.length > 0 && random() < 0.6) return pick(random, candidates);
    return this.teamCreate(service, pick(random, NAMES), pick(random, URLS));
  }

  /**
   * The operator imports one of T's endpoints into N: the printed `pulumi import` command, or the printed
   * YAML with the import option.
   */
  private async nImport(random: () => number): Promise<string> {
    const before = await this.unlocked("n", random);
    const service = pick(random, SERVICES);
    const record = await this.foreignEndpoint("n", service, random);
    if (record === undefined) return `${before}nothing to import`;
    const id = record.webhook_id;
    const resource = `imp${++this.counter}`;
    const providerUrn = this.checkpoint("n")?.resources.find(
      (r) => r.type === "pulumi:providers:webhooks" && r.urn.endsWith(`::${PROVIDER_OF[service]}`),
    )?.urn;
    const byCommand = providerUrn !== undefined && random() < 0.5;
    const adopt = await this.webhooks("n", service, [
      "adopt",
      "--id",
      String(id),
      "--resource-name",
      resource,
      "--format",
      byCommand ? "import" : "yaml",
    ]);
    if (adopt.code !== 0) {
      this.violations.push(
        `seed ${this.seed}: \`webhooks adopt --id ${id}\` failed for an endpoint that exists on ${service}: ${adopt.output.trim()}`,
      );
      return `${before}adopt of ${id} failed`;
    }
    this.intent.n.set(`${service}:${id}`, "imported");
    // The declaration it replaces: one with the same name and URL on that service the stack could not create.
    const replaced = this.nDecls.filter(
      (d) =>
        d.service === service &&
        looseKey(d.name, this.urlOf(d)) === looseKey(record.webhook_name, record.webhook_url),
    );
    const decl: NativeDecl = { resource, service, name: record.webhook_name, url: record.webhook_url };
    if (byCommand) {
      this.stats.importsCommand++;
      // The printed command, run by a shell as a person pastes it, with the provider it must use.
      const printed = adopt.stdout
        .trim()
        .split("\n")
        .find((line) => line.startsWith("pulumi import "));
      if (printed === undefined) {
        this.violations.push(
          `seed ${this.seed}: \`webhooks adopt --format import\` printed no pulumi import command: ${adopt.stdout}`,
        );
        return `${before}no import command`;
      }
      const command = `${printed} --provider ${PROVIDER_OF[service]}=${providerUrn} --yes --protect=false --stack ${this.stackNames.n} --non-interactive`;
      const env = {
        ...this.engineEnv("n"),
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
        NO_COLOR: "1",
      };
      const result = await runProcess("bash", ["-c", command], { cwd: this.dirs.n, env });
      this.transcripts.n.push(`$ ${command}\n${result.output}`);
      this.heard("n", result.output);
      this.stats.engineRuns++;
      if (result.code !== 0) this.stats.engineRunsFailed++;
      this.note(`$ [n] ${command} -> ${result.code}\n${tail(result.output, 14)}`);
      if (result.code === 0) {
        this.nDecls = [...this.nDecls.filter((d) => !replaced.includes(d)), decl];
        this.writeN();
      }
      return `${before}operator imports T's ${id} on ${service} into N with pulumi import as ${resource}${result.code === 0 ? "" : " (failed)"}`;
    }
    this.stats.importsOption++;
    // The printed YAML, pasted under the program's resources, with the provider it must use.
    const lines = adopt.stdout.split("\n");
    const body = lines.slice(lines.indexOf("resources:") + 1).filter((line) => line.trim() !== "");
    const at = body.findIndex((line) => line.trim() === "options:");
    if (at < 0 || !body.some((line) => line.trim() === `import: ${JSON.stringify(String(id))}`)) {
      this.violations.push(
        `seed ${this.seed}: \`webhooks adopt --format yaml\` printed no import option for ${id}: ${adopt.stdout}`,
      );
      return `${before}no yaml`;
    }
    body.splice(at + 1, 0, `      provider: \${${PROVIDER_OF[service]}}`);
    decl.snippet = body.join("\n");
    this.nDecls = [...this.nDecls.filter((d) => !replaced.includes(d)), decl];
    this.writeN();
    await this.up("n", () => 1);
    return `${before}operator imports T's ${id} on ${service} into N with the import option as ${resource}; up n`;
  }

  /** The operator adopts one of T's endpoints into D with adoptWebhookId, or removes an adoptWebhookId. */
  private async dAdopt(random: () => number): Promise<string> {
    const before = await this.unlocked("d", random);
    const adopted = this.dDecls.filter((d) => d.adopt !== undefined);
    if (adopted.length > 0 && random() < 0.5) {
      this.stats.adoptRemovals++;
      const target = pick(random, adopted);
      delete target.adopt;
      this.writeD();
      await this.up("d", () => 1);
      return `${before}operator removes adoptWebhookId from ${target.resource}; up d`;
    }
    const record = await this.foreignEndpoint("d", "s1", random);
    if (record === undefined) return `${before}nothing to adopt`;
    const adopt = await this.webhooks("d", "s1", ["adopt", "--id", String(record.webhook_id), "--json"]);
    if (adopt.code !== 0) {
      this.violations.push(
        `seed ${this.seed}: \`webhooks adopt --id ${record.webhook_id} --json\` failed for an endpoint that exists: ${adopt.output.trim()}`,
      );
      return `${before}adopt failed`;
    }
    const printed = (
      JSON.parse(adopt.stdout) as {
        declarations: { webhookId: number; webhookName: string; webhookUrl: string }[];
      }
    ).declarations[0]!;
    this.stats.adoptions++;
    this.intent.d.set(`s1:${printed.webhookId}`, "adopted");
    const existing = this.dDecls.find(
      (d) =>
        d.adopt === undefined &&
        looseKey(d.name, d.url) === looseKey(printed.webhookName, printed.webhookUrl),
    );
    const resource = existing?.resource ?? `adp${++this.counter}`;
    if (existing !== undefined) existing.adopt = printed.webhookId;
    else
      this.dDecls.push({
        resource,
        name: printed.webhookName,
        url: printed.webhookUrl,
        adopt: printed.webhookId,
      });
    this.writeD();
    await this.up("d", () => 1);
    return `${before}operator adopts T's ${printed.webhookId} into D as ${resource}; up d`;
  }

  /**
   * `pulumi up` killed with SIGKILL during a create of a new declaration: while the create request is
   * at the service (it lands), or while the list before it is (it lands only if the provider host
   * survives long enough); the CLI alone, or its whole process group. Then T creates the same name
   * and URL (sometimes on the other service too), and the operator runs recover now or later.
   */
  private async killDuringCreate(stack: StackName, random: () => number): Promise<string> {
    const before = await this.unlocked(stack, random);
    const service: Service = stack === "d" ? "s1" : pick(random, SERVICES);
    const name = this.freshName(random);
    const url = stack === "n" && random() < 0.25 ? SECRET_URL : pick(random, URLS);
    const realUrl = url === SECRET_URL ? this.secretUrl() : url;
    const both = stack === "n" && random() < 0.3;
    if (stack === "n") {
      this.nDecls.push({ resource: `r${++this.counter}`, service, name, url });
      if (both)
        this.nDecls.push({
          resource: `r${++this.counter}`,
          service: service === "s1" ? "s2" : "s1",
          name,
          url,
        });
      this.writeN();
    } else {
      this.dDecls.push({ resource: `r${++this.counter}`, name, url });
      this.writeD();
    }
    const atCreate = random() < 0.65;
    const group = random() < 0.4;
    const emulator = this.emulators[service];
    // A slow create lands after the kill; a slow list (shorter than the provider's timeout, as every
    // list there is slowed) holds the create back until the kill.
    emulator.configure(
      atCreate
        ? { faults: { create: { rate: 1, kinds: { latency: 1 }, slowMs: 2500 } } }
        : { faults: { list: { rate: 1, kinds: { latency: 1 }, slowMs: 800 } } },
    );
    this.stats.kills++;
    const since = lastSeq(emulator);
    const kill = new AbortController();
    let ended = false;
    const running = this.pulumi(stack, ["up", "--yes", "--skip-preview"], { signal: kill.signal }).finally(
      () => (ended = true),
    );
    const trigger = () =>
      requestFor(emulator, since, atCreate ? "create" : "list", name, atCreate ? realUrl : undefined) !==
      undefined;
    const triggered = await waitFor(() => trigger() || ended, 120_000).then(trigger);
    kill.abort();
    const result = await running;
    if (group) {
      // As a CI runner cancelling the job kills the process group: the provider and language hosts too.
      this.stats.killsGroup++;
      for (const pid of processesIn(this.dirs[stack])) killQuietly(pid);
    }
    emulator.configure({ faults: {} });
    const killed = result.signal !== null || result.error !== undefined;
    if (!triggered || !killed) {
      this.stats.killsMissed++;
      return `${before}${stack} up to create ${name} on ${service}: ${triggered ? "ended before the kill" : "sent no request to kill at"}`;
    }
    this.locked[stack] = true;
    if (atCreate)
      await waitFor(
        () =>
          emulator
            .records()
            .some((r) => r.creator_id === this.principal(stack, service) && r.webhook_name === name),
        15_000,
      );
    const parts = [
      `${before}${stack} up killed (${group ? "process group" : "CLI only"}) ${atCreate ? "during the create" : "before the create"} of ${name} on ${service}${both ? " (and on the other service)" : ""}`,
    ];
    if (random() < 0.85) {
      await this.teamCreate(service, name, realUrl);
      parts.push(`T creates the same on ${service}`);
    }
    if (stack === "n" && random() < 0.4) {
      const other: Service = service === "s1" ? "s2" : "s1";
      await this.teamCreate(other, name, realUrl);
      parts.push(`T creates the same on ${other}`);
    }
    if (random() < 0.75) parts.push(await this.recover(stack, random, random() < 0.4));
    else parts.push("recover left for later");
    return parts.join("; ");
  }

  /**
   * `webhooks recover` in the stack's project (connected to either service for N): a dry run first
   * when asked, then `--yes`; when it refuses to guess, the operator picks one candidate for each
   * resource it names (T's included: a person's choice) and runs it again with `--pick`.
   */
  private async recover(stack: StackName, random: () => number, dryRunFirst: boolean): Promise<string> {
    const home: Service = stack === "d" ? "s1" : pick(random, SERVICES);
    const pendingBefore = this.checkpoint(stack)?.pending ?? [];
    const stackFlag = ["--stack", this.stackNames[stack]];
    const said: string[] = [];
    if (dryRunFirst) {
      this.stats.recoversDryRun++;
      const dry = await this.webhooks(stack, home, ["recover", ...stackFlag, "--dry-run", "--json"]);
      const report = parseReport(dry.stdout);
      if (report !== undefined)
        this.checkRecoverReport(stack, report, new Map(), pendingBefore, `recover --dry-run (home ${home})`);
      said.push(`recover --dry-run -> ${dry.code}`);
    }
    this.stats.recovers++;
    let run = await this.webhooks(stack, home, ["recover", ...stackFlag, "--yes", "--json"]);
    let report = parseReport(run.stdout);
    if (report !== undefined)
      this.checkRecoverReport(stack, report, new Map(), pendingBefore, `recover (home ${home})`);
    said.push(`recover -> ${run.code}`);
    if (run.code === 5 && report !== undefined && report.ambiguous.length > 0) {
      this.stats.recoverAmbiguous++;
      const picks = new Map<string, number>();
      for (const entry of report.ambiguous) {
        const candidate = pick(random, entry.candidates);
        picks.set(entry.resourceName, candidate.webhookId);
        const service = this.serviceOfPending(stack, entry.urn, pendingBefore);
        if (service !== undefined) this.intent[stack].set(`${service}:${candidate.webhookId}`, "picked");
        this.stats.picks++;
        if (service !== undefined && candidate.creatorId !== this.principal(stack, service))
          this.stats.picksOfOthers++;
      }
      const pickArgs = [...picks].flatMap(([resource, id]) => ["--pick", `${resource}=${id}`]);
      run = await this.webhooks(stack, home, ["recover", ...stackFlag, "--yes", "--json", ...pickArgs]);
      report = parseReport(run.stdout);
      if (report !== undefined)
        this.checkRecoverReport(stack, report, picks, pendingBefore, `recover --pick (home ${home})`);
      said.push(`recover ${pickArgs.join(" ")} -> ${run.code}`);
    }
    if (run.code === 0 && report !== undefined) {
      this.stats.recoverRecorded += report.recorded.length;
      this.stats.recoverCleared += report.cleared.length;
    } else {
      // The operator gives up on recovering and releases the lock: the next up creates afresh.
      this.stats.recoverFailed++;
      await this.pulumi(stack, ["cancel", "--yes"]);
      said.push("pulumi cancel");
    }
    this.locked[stack] = false;
    return said.join(", ");
  }

  private serviceOfPending(
    stack: StackName,
    urn: string,
    pending: Checkpoint["pending"],
  ): Service | undefined {
    const op = pending.find((p) => p.resource.urn === urn);
    if (op !== undefined) return this.serviceOfResource(stack, op.resource);
    if (stack === "d") return "s1";
    const decl = this.nDecls.find((d) => urn.endsWith(`::${d.resource}`));
    return decl?.service;
  }

  private async recoverAtRandom(random: () => number): Promise<string> {
    const stack: StackName = random() < 0.6 ? "n" : "d";
    const wasLocked = this.locked[stack];
    const held = JSON.stringify(this.held(stack).map((h) => [h.service, h.id]));
    const said = await this.recover(stack, random, random() < 0.5);
    if (!wasLocked && JSON.stringify(this.held(stack).map((h) => [h.service, h.id])) !== held) {
      this.violations.push(
        `seed ${this.seed}: recover changed what stack ${stack} holds though nothing was pending (${held} -> ${JSON.stringify(this.held(stack).map((h) => [h.service, h.id]))})`,
      );
    }
    return `recover at a random point in ${stack}${wasLocked ? " (a killed run pending)" : ""}: ${said}`;
  }

  /** `webhooks orphans --stack ... --json` in the stack's project, against one service. */
  private async orphans(random: () => number, on?: [StackName, Service]): Promise<string> {
    const behind = this.leftBehind();
    const randomStack: StackName = random() < 0.6 ? "n" : "d";
    const [stack, home] =
      on ??
      (behind.length > 0 && random() < 0.7
        ? pick(random, behind)
        : [randomStack, randomStack === "d" ? "s1" : pick(random, SERVICES)]);
    this.stats.orphansRuns++;
    this.observeHeld();
    const result = await this.webhooks(stack, home, ["orphans", "--stack", this.stackNames[stack], "--json"]);
    if (result.code !== 0) {
      // A stack never brought up has no state yet: that refusal is the only expected one.
      if (!/no stack|not found|does not exist/i.test(result.output))
        this.violations.push(
          `seed ${this.seed}: \`webhooks orphans\` in ${stack} failed: ${tail(result.output, 6)}`,
        );
      return `orphans ${stack} on ${home} -> ${result.code}`;
    }
    const report = JSON.parse(result.stdout) as OrphansJson;
    const heldNow = new Set(
      this.held(stack)
        .filter((h) => h.service === home)
        .map((h) => h.id),
    );
    for (const orphan of report.orphans) {
      const key = `${home}:${orphan.webhookId}`;
      if (!orphan.ours && orphan.relation !== "left-behind") {
        this.stats.orphansNotOurs++;
        continue;
      }
      this.stats.orphansOurs++;
      this.reported[stack].add(orphan.webhookId);
      const record = this.record(home, orphan.webhookId);
      const why: string[] = [];
      if (record === undefined) why.push("no such endpoint on the service");
      else if (record.creator_id !== this.principal(stack, home))
        why.push(`created by ${record.creator_name} (${record.creator_id}), not the stack's principal`);
      if (this.intent[stack].has(key)) why.push(`the operator ${this.intent[stack].get(key)} it`);
      if (heldNow.has(orphan.webhookId)) why.push("the stack holds it");
      if (!this.everHeld[stack].has(key)) why.push("the stack never held it");
      if (orphan.ours !== (orphan.relation === "left-behind"))
        why.push(`relation ${orphan.relation} with ours ${orphan.ours}`);
      if (why.length > 0)
        this.violations.push(
          `seed ${this.seed}: orphans in ${stack} (on ${home}) advises removing endpoint ${orphan.webhookId}: ${why.join("; ")}`,
        );
    }
    // ... and it misses none: what the stack created there, held once and holds no longer, and nobody took over.
    const advised = new Set(report.orphans.filter((o) => o.ours).map((o) => o.webhookId));
    for (const key of this.everHeld[stack]) {
      const [service, id] = [key.split(":")[0] as Service, Number(key.split(":")[1])];
      if (service !== home || heldNow.has(id) || this.intent[stack].has(key) || advised.has(id)) continue;
      if (this.record(home, id)?.creator_id !== this.principal(stack, home)) continue;
      this.violations.push(
        `seed ${this.seed}: orphans in ${stack} (on ${home}) does not name endpoint ${id} left behind: the stack's principal created it there, the stack held it and holds it no longer`,
      );
    }
    return `orphans ${stack} on ${home}: ${report.orphans.filter((o) => o.ours).length} ours of ${report.orphans.length}`;
  }

  private async destroyOrRefresh(random: () => number): Promise<string> {
    const stack: StackName = random() < 0.6 ? "n" : "d";
    const before = await this.unlocked(stack, random);
    if (random() < 0.5) {
      this.stats.refreshes++;
      await this.pulumi(stack, ["refresh", "--yes", "--skip-preview"]);
      return `${before}refresh ${stack}`;
    }
    this.stats.destroys++;
    await this.pulumi(stack, ["destroy", "--yes", "--skip-preview"]);
    if (stack === "n") {
      this.nDecls = [];
      this.writeN();
    } else {
      this.dDecls = [];
      this.writeD();
    }
    // What did it leave on the service? The operator asks at once, half the time.
    const after =
      random() < 0.5
        ? `; ${await this.orphans(random, [stack, stack === "d" ? "s1" : pick(random, SERVICES)])}`
        : "";
    return `${before}destroy ${stack}${after}`;
  }

  /** `webhooks orphans` for each stack on each service where it left something behind. */
  private async audit(): Promise<string> {
    this.observeHeld();
    const pairs = [...new Set(this.leftBehind().map((pair) => pair.join(":")))].map(
      (pair) => pair.split(":") as [StackName, Service],
    );
    const said: string[] = [];
    for (const pair of pairs) said.push(await this.orphans(() => 0, pair));
    return `audit: ${said.length > 0 ? said.join(", ") : "nothing left behind"}`;
  }

  /** N and D apply at the same moment (their services overlap on S1). */
  private async bothUp(random: () => number): Promise<string> {
    const before = `${await this.unlocked("n", random)}${await this.unlocked("d", random)}`;
    const changes = [this.mutateN(random), this.mutateD(random)];
    this.writeN();
    this.writeD();
    this.stats.nUps++;
    this.stats.dUps++;
    await Promise.all([
      this.pulumi("n", ["up", "--yes", "--skip-preview"]),
      this.pulumi("d", ["up", "--yes", "--skip-preview"]),
    ]);
    return `${before}${changes.join(", ")}; up n and d at once`;
  }

  // ---- invariants -----------------------------------------------------------------------------

  private observeHeld(): void {
    for (const stack of ["n", "d"] as const)
      for (const h of this.held(stack))
        if (h.service !== undefined) this.everHeld[stack].add(`${h.service}:${h.id}`);
  }

  /** Invariant 2, on a recover report (a dry run's included: what it would record). */
  private checkRecoverReport(
    stack: StackName,
    report: RecoverJson,
    picks: ReadonlyMap<string, number>,
    pending: Checkpoint["pending"],
    label: string,
  ): void {
    for (const entry of [
      ...report.recorded,
      ...report.ambiguous.flatMap((a) => a.candidates.map((c) => ({ ...c, resourceName: a.resourceName }))),
    ])
      this.reported[stack].add(entry.webhookId);
    for (const service of report.services) {
      const which = SERVICES.find((s) => service.service === this.emulators[s].url);
      if (which === undefined) continue;
      const own = this.principal(stack, which);
      const foreign = service.creators.filter((c) => c !== own);
      if (foreign.length > 0)
        this.violations.push(
          `seed ${this.seed}: ${label} in ${stack} took creator(s) ${foreign.join(", ")} for the stack's principal on ${which} (its own there is ${own ?? "none"})`,
        );
    }
    for (const recorded of report.recorded) {
      const service = this.serviceOfPending(stack, recorded.urn, pending);
      if (service === undefined) {
        this.violations.push(
          `seed ${this.seed}: ${label} in ${stack} recorded ${recorded.webhookId} for ${recorded.resourceName}, whose service the model cannot tell`,
        );
        continue;
      }
      const record = this.record(service, recorded.webhookId);
      const picked = picks.get(recorded.resourceName) === recorded.webhookId;
      const intended = this.intent[stack].has(`${service}:${recorded.webhookId}`);
      if (record === undefined)
        this.violations.push(
          `seed ${this.seed}: ${label} in ${stack} recorded ${recorded.webhookId} for ${recorded.resourceName}, which does not exist on its service ${service}`,
        );
      else if (record.creator_id !== this.principal(stack, service) && !picked && !intended) {
        this.violations.push(
          `seed ${this.seed}: ${label} in ${stack} recorded ${recorded.webhookId} (created by ${record.creator_name}, ${record.creator_id}) on ${service} for ${recorded.resourceName}, not picked`,
        );
      }
    }
  }

  /**
   * Whether the stack's checkpoint file is there but cannot be parsed (a kill can leave it so until recover
   * repairs it).
   */
  private unreadable(stack: StackName): boolean {
    return (
      existsSync(
        join(
          this.backends[stack].dir,
          "state",
          ".pulumi",
          "stacks",
          stack === "n" ? N_PROJECT : D_PROJECT,
          `${this.stackNames[stack]}.json`,
        ),
      ) && this.checkpoint(stack) === undefined
    );
  }

  private check(where: string): void {
    const v = (text: string) => this.violations.push(`seed ${this.seed} ${where}: ${text}`);
    this.observeHeld();
    const readable = (["n", "d"] as const).filter((stack) => !this.unreadable(stack));
    if (readable.length < 2)
      this.note(`   (a checkpoint is unreadable: its state is not checked at this step)`);
    for (const stack of readable) {
      const seen = new Set<string>();
      for (const h of this.held(stack)) {
        if (h.service === undefined) {
          v(`stack ${stack} holds ${h.id} (${h.resource.urn}) with no explicit provider the model declared`);
          continue;
        }
        const key = `${h.service}:${h.id}`;
        if (seen.has(key) && h.resource.delete !== true)
          v(`stack ${stack} holds endpoint ${h.id} on ${h.service} twice`);
        seen.add(key);
        const record = this.record(h.service, h.id);
        // 1. Only what its own principal created there, or what the operator took over there.
        if (record === undefined) {
          v(`stack ${stack} holds ${h.id} for ${h.resource.urn}, which does not exist on ${h.service}`);
          continue;
        }
        if (record.creator_id !== this.principal(stack, h.service) && !this.intent[stack].has(key)) {
          v(
            `stack ${stack} holds endpoint ${h.id} on ${h.service}, created by ${record.creator_name} (${record.creator_id}), never adopted, imported or picked`,
          );
        }
        // ... and what it records of it is that service's endpoint.
        const outputs = h.resource.outputs ?? {};
        const mismatched = [
          typeof outputs.creatorId === "number" && outputs.creatorId !== record.creator_id
            ? `creatorId ${outputs.creatorId} != ${record.creator_id}`
            : "",
          typeof outputs.createTime === "number" && outputs.createTime !== record.create_time
            ? `createTime ${outputs.createTime} != ${record.create_time}`
            : "",
          typeof outputs.webhookName === "string" &&
          looseKey(outputs.webhookName, "") !== looseKey(record.webhook_name, "")
            ? `webhookName ${outputs.webhookName} != ${record.webhook_name}`
            : "",
        ].filter(Boolean);
        if (mismatched.length > 0)
          v(
            `stack ${stack}'s state for ${h.id} on ${h.service} is not that service's endpoint (${mismatched.join(", ")})`,
          );
      }
    }
    for (const service of SERVICES) {
      const records = this.emulators[service].records();
      for (const stack of readable) {
        const principal = this.principal(stack, service);
        if (principal === undefined) continue;
        const own = records.filter((r) => r.creator_id === principal);
        // 5. No name and URL created twice by one stack on a service.
        const byKey = new Map<string, number[]>();
        for (const r of own)
          byKey.set(looseKey(r.webhook_name, r.webhook_url), [
            ...(byKey.get(looseKey(r.webhook_name, r.webhook_url)) ?? []),
            r.webhook_id,
          ]);
        for (const [key, ids] of byKey)
          if (ids.length > 1)
            v(
              `"${key.replace(this.hookKey, "<hookKey>")}" created ${ids.length} times by stack ${stack} on ${service} (ids ${ids.join(", ")})`,
            );
        // 6. Every endpoint it created is in its state there, or was named to it, or is what a
        // killed run's pending create made (the state says so; recover is the operator's next move).
        const held = new Set(
          this.held(stack)
            .filter((h) => h.service === service)
            .map((h) => h.id),
        );
        const pending = this.pendingAddresses(stack, service);
        for (const r of own) {
          if (held.has(r.webhook_id) || this.reported[stack].has(r.webhook_id)) continue;
          if (this.locked[stack] && pending.has(looseKey(r.webhook_name, r.webhook_url))) continue;
          v(
            `endpoint ${r.webhook_id} created by stack ${stack} on ${service} is neither in its state nor named to it`,
          );
        }
      }
    }
    // 4. No secret in plaintext anywhere a command printed or the backends keep.
    const signSecrets = SERVICES.flatMap((s) => this.emulators[s].records().map((r) => r.sign_secret));
    const tokens = [TOKENS.human, TOKENS.d, ...Object.values(TOKENS.n), ...Object.values(TOKENS.t)];
    const everything = [
      ...this.transcripts.n,
      ...this.transcripts.d,
      readTree(this.backends.n.dir),
      readTree(this.backends.d.dir),
    ];
    for (const found of leaks([...tokens, ...signSecrets], everything))
      v(`a secret appeared in plaintext (${found})`);
    const nTexts = [...this.transcripts.n, readTree(this.backends.n.dir)];
    if (nTexts.some((text) => text.toLowerCase().includes(this.hookKey.toLowerCase()))) {
      const where = this.transcripts.n.find((t) => t.toLowerCase().includes(this.hookKey.toLowerCase()));
      v(
        `N's secret config value appeared in plaintext${where === undefined ? " in its backend's files" : ` in:\n${where.replaceAll(this.hookKey, "<hookKey>").slice(0, 2000)}`}`,
      );
    }
  }

  // ---- a schedule ------------------------------------------------------------------------------

  async schedule(seed: number): Promise<void> {
    const started = Date.now();
    const random = rng(seed);
    const before = this.violations.length;
    await this.reset(seed, random);
    const done: string[] = [];
    try {
      for (let i = 0; i <= STEPS; i++) {
        // The last round is the operator's audit: orphans wherever a stack left something behind.
        const said = i < STEPS ? await this.step(random) : await this.audit();
        done.push(said.replaceAll(this.hookKey, "<hookKey>"));
        this.stats.steps++;
        this.note(`-- step ${i + 1}: ${done.at(-1)!}`);
        this.note(
          `   held: n ${JSON.stringify(this.held("n").map((h) => `${h.service ?? "?"}:${h.id}`))}, d ${JSON.stringify(this.held("d").map((h) => `${h.service ?? "?"}:${h.id}`))}; on s1 ${recordsLine(this.emulators.s1)}; on s2 ${recordsLine(this.emulators.s2)}`,
        );
        this.check(`step ${i + 1} (${done.join(" | ")})`);
        if (this.violations.length > before) break;
      }
    } finally {
      await this.teardown();
    }
    this.stats.schedules++;
    this.durations.push(Date.now() - started);
    const found = this.violations.length - before;
    const replay = `source scripts/node-env.sh && source scripts/engine.sh && source scripts/engine-yaml.sh && MODEL_OPS_SEED=${seed} MODEL_OPS_SCHEDULES=1${STEPS === 4 ? "" : ` MODEL_OPS_STEPS=${STEPS}`} npx vitest run --config vitest.e2e.config.mts test/e2e/model-operators.test.ts`;
    console.log(
      `model-operators: seed ${seed}, ${Math.round((Date.now() - started) / 1000)} s${found > 0 ? `, ${found} VIOLATION(S)` : ""}: ${done.join(" | ")}`,
    );
    if (found > 0) console.log(`${this.violations.slice(before).join("\n")}\nreplay: ${replay}`);
    if (VERBOSE) console.log(this.log.join("\n").replaceAll(this.hookKey, "<hookKey>"));
    if (found > 0)
      this.violations.push(
        `seed ${seed} replay: ${replay}\n${this.log.join("\n").replaceAll(this.hookKey, "<hookKey>")}`,
      );
  }
}

function parseReport(stdout: string): RecoverJson | undefined {
  try {
    return JSON.parse(stdout) as RecoverJson;
  } catch {
    return undefined;
  }
}

/** The service's records as `id:creator` (for the log). */
function recordsLine(emulator: Emulator): string {
  return emulator
    .records()
    .map((r) => `${r.webhook_id}:${r.creator_id}`)
    .join(" ");
}

function lastSeq(emulator: Emulator): number {
  return emulator.requests().at(-1)?.seq ?? 0;
}

/** A request the emulator received after `since` on `route` for this name (and URL). */
function requestFor(
  emulator: Emulator,
  since: number,
  route: "create" | "list",
  name: string,
  url?: string,
): unknown {
  return emulator.requests().find((r) => {
    if (r.seq <= since || r.route !== route) return false;
    const body = r.body as { webhook_name?: unknown; webhook_url?: unknown } | null;
    return body?.webhook_name === name && (url === undefined || body.webhook_url === url);
  });
}

/** The end of what a command printed, without the engine's notice that the plugin came from PATH. */
function tail(text: string, lines: number): string {
  return text
    .trim()
    .split("\n")
    .filter((line) => !line.includes("from $PATH at"))
    .slice(-lines)
    .join("\n");
}

/** What a `webhooks --json` run reported, in a few lines (its end for anything else). */
function summary(result: RunResult): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.stdout);
  } catch {
    return tail(result.output, 14);
  }
  const json = parsed as Partial<RecoverJson & OrphansJson> & { declarations?: unknown[] };
  const line = (value: unknown) => JSON.stringify(value);
  const parts: string[] = [];
  if (json.orphans !== undefined)
    parts.push(
      `orphans: ${line(json.orphans.map((o) => ({ id: o.webhookId, relation: o.relation, ours: o.ours, creator: o.creatorId })))}`,
    );
  if (json.pendingCreates !== undefined) {
    parts.push(`pending ${json.pendingCreates}; services ${line(json.services)}`);
    parts.push(
      `recorded ${line(json.recorded?.map((r) => [r.resourceName, r.webhookId]))}; cleared ${line(json.cleared?.map((c) => c.resourceName))}`,
    );
    parts.push(`ambiguous ${line(json.ambiguous?.map((a) => [a.resourceName, a.candidates]))}`);
  }
  if (json.declarations !== undefined)
    parts.push(`declarations ${line(json.declarations.map((d) => (d as { webhookId: number }).webhookId))}`);
  const stderr = tail(result.stderr, 4);
  return [...parts, ...(stderr === "" ? [] : [stderr])].join("\n");
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

describe(
  "model-based: operators, another team and kills on two services, every invariant checked after every step",
  { tags: ["budgeted"] },
  () => {
    const queue = new ScheduleQueue(MAX_SCHEDULES, MIN_SCHEDULES, BUDGET_S * 1000);
    const workers = Array.from({ length: WORKERS }, (_, i) => new Worker(i));
    console.log(
      `model-operators: first seed ${SEED.seed} (${SEED.source}); ${EXPLICIT_SCHEDULES ? `${MAX_SCHEDULES} schedule(s)` : `schedules for ${BUDGET_S} s, at least ${MIN_SCHEDULES}`} of ${STEPS} steps, ${WORKERS} worker(s)`,
    );
    afterAll(() => {
      const total = emptyStats();
      for (const w of workers) for (const key of STAT_KEYS) total[key] += w.stats[key];
      const durations = workers.flatMap((w) => w.durations).sort((a, b) => a - b);
      const median = durations.length === 0 ? 0 : durations[Math.floor(durations.length / 2)]!;
      console.log(
        `model-operators: ${JSON.stringify(total)}; per schedule median ${Math.round(median / 1000)} s, max ${Math.round((durations.at(-1) ?? 0) / 1000)} s; violations: ${workers.reduce((n, w) => n + w.violations.length, 0)}`,
      );
    });

    it.concurrent.each(workers.map((worker, index) => ({ worker, index })))(
      "worker $index: every invariant holds after every step",
      async ({ worker }) => {
        for (let k = queue.take(); k !== undefined; k = queue.take())
          await worker.schedule((SEED.seed + k) % 2 ** 32);
        expect(worker.violations, worker.violations.join("\n\n")).toEqual([]);
      },
      6 * 60 * 60_000,
    );

    it("ran what it was asked to, and its actions did something", () => {
      const total = emptyStats();
      for (const w of workers) for (const key of STAT_KEYS) total[key] += w.stats[key];
      expect(total.schedules).toBeGreaterThanOrEqual(MIN_SCHEDULES);
      // A run whose engine commands all fail would check nothing.
      expect(total.engineRuns - total.engineRunsFailed).toBeGreaterThan(0);
    });
  },
);
