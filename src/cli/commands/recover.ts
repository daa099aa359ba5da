import type { Command } from "../command";
import { parsePicks } from "./recover-plan";
import { readFileSync } from "node:fs";
import {
  CLIENT_DEFAULTS,
  WebhooksClient,
  type WebhookEndpointRecord,
  type WebhooksClientOptions,
} from "../../client";
import { contradiction, contradictionMessage, principalsOf } from "../../core/principal";
import { EMPTY_CONFIG, serviceOf } from "../../core/settings";
import { configKey } from "../../core/settings-table";
import { stackOfUrn, type Provenance } from "../../core/state";
import { redactShown, showable, type ShownSecrets } from "../../text";
import { findProject, type ProjectDir } from "../stack/project";
import {
  endpointResources,
  heldId,
  parseState,
  pendingCreates,
  recordedResource,
  recoveredDeployment,
  secretTexts,
  stackFacts,
  type Deployment,
  type PendingCreate,
  type UntypedDeployment,
} from "../stack/deployment";
import { CliError, EXIT, usageError } from "../exit";
import { keepFirst, listEndpoints, mayBeIncomplete, sortedById, type ListingClient } from "./listing";
import {
  judgeLock,
  localProcesses,
  lockFromError,
  readFileBackendLocks,
  type LockInfo,
  type LockVerdict,
  type ProcessProbe,
} from "../stack/lock";
import { Progress, type Sink } from "../output/output";
import {
  backendUrl,
  parsePulumiJson,
  pulumiFailure,
  pulumiOk,
  stackArgs,
  type PulumiResult,
  type PulumiRunner,
} from "../stack/pulumi";
import { matchPendingCreates, type Outcome } from "./recover-plan";
import { printReport, type RecoverReport } from "./recover-report";
import { recordInHistory } from "../stack/history";
import { brokenCheckpoints, repairCheckpoint } from "../stack/repair";
import {
  ServiceClients,
  heldService,
  configuredPrincipal,
  serviceTarget,
  type HomeService,
  type ServiceTarget,
} from "../stack/services";
import { parseUrn, urnName } from "../../core/wire";

/**
 * `webhooks recover`: after a killed `pulumi up`, records in state the endpoints its creates made
 * and clears the creates that made none, so that a plain `pulumi up` converges with no duplicate.
 *
 * Why a state edit (`pulumi stack export` → `pulumi stack import`) and not the engine's
 * `pulumi refresh --import-pending-creates <urn> <id>`: in Pulumi 3.259 that flag only rewrites the
 * pending operation from "creating" to "importing" (cmd/pulumi/operations/refresh.go,
 * pendingCreatesToImports); nothing in the engine reads a pending "importing" operation back (no use
 * of OperationTypeImporting in resource/deploy), and the snapshot written after the refresh keeps
 * only the base's pending *creates* (backend/snapshot.go and backend/journal.go: "Track pending
 * create operations from the base snapshot"). The endpoint is silently forgotten, for dynamic and
 * native resources alike (tested: it leaves neither a resource nor a pending operation). `pulumi
 * stack import` reads the deployment from stdin, checks its integrity, encrypts secrets given in
 * plaintext form, and drops every pending operation (cmd/pulumi/stack/io.go, SaveSnapshot). So the
 * export is read without `--show-secrets` (existing secrets stay ciphertext), the found endpoints'
 * sign secrets are added in plaintext form, and the result goes to `pulumi stack import` through a
 * pipe: no plaintext secret touches the disk.
 */
export interface RecoverOptions {
  stack?: string | undefined;
  yes: boolean;
  dryRun: boolean;
  json: boolean;
  progress: boolean;
  /** Release a lock whose holder cannot be checked from here (another machine, a service backend). */
  releaseLock: boolean;
  /** Overrides the window's start (ms since the epoch). */
  since?: number | undefined;
  picks: ReadonlyMap<string, number>;
  /** How long to let creates in flight land after stopping left-over provider hosts. */
  settleMs?: number;
  /** What nothing printed may show (the token, the stack's secret values). */
  secrets?: ShownSecrets;
}

export interface RecoverDeps {
  /** The service, or how to reach it once the stack can be read (its config may live in the stack). */
  client: ListingClient | (() => Promise<ListingClient>);
  /**
   * Where that client points and what it was resolved from (resolved after `client`). Without it,
   * the client's own `baseUrl` names the home service and no stack config is known.
   */
  home?: () => Promise<Omit<HomeService, "client">>;
  /** Opens a client for another service a pending create was sent to (an explicit provider's, a connection input's). */
  open?: (options: WebhooksClientOptions) => ListingClient & { close?(): Promise<void> };
  /** Told the tokens of those other services, so that nothing printed can show them. */
  onSecrets?: (secrets: string[]) => void;
  pulumi: PulumiRunner;
  sink: Sink;
  /** The project directory (where Pulumi.yaml is). */
  cwd: string;
  processes?: ProcessProbe;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const RECOVER_USAGE = `Usage: webhooks recover [--stack S] [--yes] [--dry-run] [--json] [--pick RESOURCE=ID ...] [--since TIME] [--release-lock]

Run in the stack's project directory after a \`pulumi up\` was killed. For each pending create of a
WebhookEndpoint (either face) in the stack's state, it looks on the service that create was sent to
(its explicit provider's, its connection input's, else the one \`webhooks\` connects to) for the
endpoint with exactly the declared name and URL, created since the interrupted update started (the
backend's lock; else the end of the last recorded update; 60 s allowed for clock skew), held by no
resource of the stack on that service, and created by the stack's principal there: the creatorId of
the endpoints the stack itself created on that service, as their recorded provenance says (endpoints
adopted, imported or picked, and those of earlier releases, which record no provenance, teach
nothing). One created by anyone else is never taken. One match is recorded in state (through
\`pulumi stack export\` / \`pulumi stack import\`), none is cleared (the next \`pulumi up\` creates
it). It never guesses: with two candidates, or with any candidate when the state shows no principal
of the stack on that service (e.g. a first \`up\` killed before any create was recorded: a person may
have created the same name and URL meanwhile), it changes nothing and exits 5, printing the
candidates, the --pick to use if a person confirms one is the stack's, and the adopt commands.
Secrets in the state (a provider's token, a secret name) are read with
\`pulumi stack export --show-secrets\` into memory and never shown. Before looking, it stops
provider hosts the killed run left running in this directory (their engine is gone) and waits for
creates in flight to land; it releases the killed run's lock (\`pulumi cancel\`) when its process is
gone. Then run \`pulumi up\`.
  --stack S          the stack (default: the current one)
  --yes              apply without asking (required when stdin is not a terminal)
  --dry-run          show what it would do; change nothing
  --json             the report as JSON
  --pick R=ID        a person's choice for resource R (name or URN) among the candidates printed
  --since TIME       the interrupted update's start (ISO time), when neither lock nor history shows it
  --release-lock     release the lock even though its holder cannot be checked from here`;

export async function runRecover(deps: RecoverDeps, options: RecoverOptions): Promise<RecoverReport> {
  const run = await readRun(deps, options);
  if (run.ours.length === 0 && run.lock === undefined) {
    await sayContradiction(deps, run);
    printReport(deps.sink, run.report, options.json, options.secrets);
    return run.report;
  }
  // Checks before effects: everything that can refuse is judged before a host is stopped, a lock
  // released or the state written.
  const plan = await planRecovery(deps, run);
  await prepare(deps, run, options);
  const outcomes = await look(deps, run, plan, options);
  if (run.report.ambiguous.length > 0) {
    printReport(deps.sink, run.report, options.json, options.secrets);
    const unconfirmed = run.report.services.some((s) => s.creators.length !== 1);
    const why = unconfirmed
      ? "match more than one endpoint, share one, or match one the stack's principal cannot be confirmed for (the state records no endpoint the stack created on that service, or endpoints by more than one creator)"
      : "match more than one endpoint (or share one)";
    throw new CliError(
      EXIT.refused,
      `${run.report.ambiguous.length} pending create(s) ${why}: nothing was changed; choose with --pick, or adopt as printed above`,
    );
  }
  if (!options.dryRun) await write(deps, run, plan, outcomes, options);
  run.report.changed ||= !options.dryRun;
  printReport(deps.sink, run.report, options.json, options.secrets);
  return run.report;
}

/**
 * With nothing to recover, a principalId of the home configuration that the state's facts
 * contradict is still said (a warning: there is nothing to refuse here, but the stack's next
 * preview or up refuses it), so that the operator does not take the stack to be in order.
 */
async function sayContradiction(deps: RecoverDeps, run: RecoverRun): Promise<void> {
  if (deps.home === undefined) return;
  const home = await deps.home();
  const conflict = contradiction(
    configuredPrincipal(home.config, home.env),
    stackFacts(run.revealedState, home.service),
  );
  if (conflict !== undefined)
    deps.sink.stderr(
      `webhooks: warning: ${contradictionMessage(conflict, "the stack's next pulumi preview or up refuses it; recover found nothing to do and changed nothing", principalHeldSecret(home))}\n`,
    );
}

/** Whether the home configuration holds its principalId secret: then a message names no creator. */
function principalHeldSecret(home: Omit<HomeService, "client">): boolean {
  return home.secretConfigKeys.includes(configKey("principalId"));
}

/** What recover works on: the stack's state as read, its pending creates, its lock and the run's window. */
interface RecoverRun {
  project: ProjectDir;
  stackFlag: string[];
  backend: string | undefined;
  original: UntypedDeployment;
  revealedState: Deployment;
  client: ListingClient;
  ours: PendingCreate[];
  names: { stack: string; project: string };
  lock: LockInfo | undefined;
  window: { since: number; source: string } | undefined;
  report: RecoverReport;
  processes: ProcessProbe;
  sleep: (ms: number) => Promise<void>;
}

/** Each pending create's service and how it is judged there, decided before any effect. */
interface RecoverPlan {
  home: HomeService;
  clients: ServiceClients;
  targets: Map<string, ServiceTarget>;
  /** By service; `null`: the pending creates whose service the state cannot tell (not looked for). */
  groups: Map<string | null, ServiceGroup>;
}

interface ServiceGroup {
  target: Extract<ServiceTarget, { known: true }> | undefined;
  pending: PendingCreate[];
  /** The stack's principal there: the claim, checked against the facts, else the facts' creators. */
  creators: Set<number>;
}

/**
 * Reads the state, its pending creates, the lock and the interrupted run's window; changes nothing but a
 * broken checkpoint's metadata.
 */
async function readRun(deps: RecoverDeps, options: RecoverOptions): Promise<RecoverRun> {
  const { pulumi } = deps;
  const processes = deps.processes ?? localProcesses;
  if (!options.yes && !options.dryRun && !deps.sink.stdinIsTTY) {
    throw usageError("recover changes the stack's state: pass --yes to apply (or --dry-run to only look)");
  }
  const project = findProject(deps.cwd);
  if (project === undefined)
    throw new CliError(
      EXIT.config,
      `no Pulumi.yaml in ${deps.cwd} or above: run recover in the stack's project directory`,
    );
  const stackFlag = stackArgs(options.stack);
  const backend = await backendUrl(pulumi);
  const { state: original, repaired } = await readState(deps, options, project.file, backend, processes);
  const deployment = original.deployment;
  const client = typeof deps.client === "function" ? await deps.client() : deps.client;
  const revealedState = await readRevealed(pulumi, stackFlag, deployment);
  const { ours, foreign } = pendingCreates(deployment, revealedState);
  if (foreign.length > 0) {
    throw new CliError(
      EXIT.refused,
      `the state also has pending creates of other resources (${foreign
        .map((op) => op.resource.urn)
        .slice(0, 10)
        .join(
          ", ",
        )}): \`pulumi stack import\` would drop them too, and only their providers can say whether they exist. Resolve those first (export the state, move each into resources with its ID or delete it, import), keeping the WebhookEndpoint ones, then run recover again`,
    );
  }
  const names = stackNames(original, options.stack, project.file);
  const report: RecoverReport = {
    stack: names.stack,
    project: names.project,
    pendingCreates: ours.length,
    window: null,
    lock: null,
    providers: [],
    recorded: [],
    cleared: [],
    ambiguous: [],
    droppedOperations: (deployment.pending_operations ?? []).length - ours.length,
    repaired,
    services: [],
    dryRun: options.dryRun,
    changed: repaired !== null && !options.dryRun,
  };
  const run: RecoverRun = {
    project,
    stackFlag,
    backend,
    original,
    revealedState,
    client,
    ours,
    names,
    lock: undefined,
    window: undefined,
    report,
    processes,
    sleep: deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
  };
  // The lock, when the backend's lock files can be read from here.
  const locks = backend === undefined ? undefined : readFileBackendLocks(backend, names.project, names.stack);
  run.lock =
    locks && locks.length > 0 ? locks.reduce((a, b) => (a.startedAt <= b.startedAt ? a : b)) : undefined;
  if (run.lock !== undefined) {
    const verdict = worstVerdict((locks ?? []).map((l) => judgeLock(l, processes)));
    report.lock = lockReport(run.lock, verdict);
    checkLockMayGo(verdict, options.releaseLock);
  }
  if (ours.length === 0 && run.lock === undefined) return run;
  run.window = await runWindow(pulumi, run, options);
  // Provider hosts the killed run left in this directory: they may still be creating.
  for (const host of processes.providerHosts(project.dir)) {
    if (await processes.listening(host.engine)) continue;
    report.providers.push({ pid: host.pid, engine: host.engine, kind: host.kind, stopped: false });
  }
  return run;
}

/** The window: the interrupted update's start, from the lock, else the end of the last recorded update. */
async function runWindow(
  pulumi: PulumiRunner,
  run: RecoverRun,
  options: RecoverOptions,
): Promise<{ since: number; source: string } | undefined> {
  const window =
    options.since !== undefined
      ? { since: options.since, source: "--since" }
      : run.lock
        ? { since: run.lock.startedAt, source: "the lock: when the interrupted update started" }
        : await historyBound(pulumi, run.stackFlag);
  if (window !== undefined)
    run.report.window = {
      since: new Date(window.since).toISOString(),
      source: window.source,
      skewMs: CLIENT_DEFAULTS.clockSkewMs,
    };
  const needsWindow = run.ours.some(
    (p) =>
      p.adoptWebhookId === undefined &&
      p.unmatchable === undefined &&
      !options.picks.has(p.resourceName) &&
      !options.picks.has(p.urn),
  );
  if (window === undefined && needsWindow) {
    throw new CliError(
      EXIT.refused,
      "cannot tell when the interrupted update started (no lock, no recorded update in the stack's history), so endpoints created by others could not be told apart: pass --since <ISO time of the start of the killed run>",
    );
  }
  return window;
}

/**
 * Where each pending create was sent, grouped by service, and the stack's principal on each: a
 * principalId its configuration names is checked against the facts the state records there (the
 * creators of the endpoints the stack created on it) and refused, naming both, if they contradict
 * it (principal.ts); with no principalId, the facts' creators.
 */
async function planRecovery(deps: RecoverDeps, run: RecoverRun): Promise<RecoverPlan> {
  const home: HomeService = {
    client: run.client,
    ...(deps.home
      ? await deps.home()
      : {
          service: serviceOf((run.client as { baseUrl?: string }).baseUrl ?? ""),
          config: EMPTY_CONFIG,
          env: {},
          secretConfigKeys: [],
        }),
  };
  const clients = new ServiceClients(home, deps.open ?? ((options) => new WebhooksClient(options)));
  const targets = new Map(
    run.ours.map((p) => [p.urn, serviceTarget(p.revealedResource, run.revealedState, home)]),
  );
  deps.onSecrets?.(clients.secrets([...targets.values()]));
  const groups = new Map<string | null, ServiceGroup>();
  for (const p of run.ours) {
    const target = targets.get(p.urn)!;
    if (!target.known && p.unmatchable === undefined)
      p.unmatchable = `which service it was sent to cannot be told: ${target.why}`;
    const key = target.known ? target.service : null;
    const group = groups.get(key) ?? {
      target: target.known ? target : undefined,
      pending: [],
      creators: new Set<number>(),
    };
    group.pending.push(p);
    groups.set(key, group);
  }
  for (const [service, group] of groups) {
    const claim = group.target?.principal;
    const facts = service === null ? [] : stackFacts(run.revealedState, service);
    const conflict = contradiction(claim, facts);
    if (conflict !== undefined)
      throw new CliError(
        EXIT.refused,
        contradictionMessage(conflict, "nothing was changed", principalHeldSecret(home)),
      );
    // No principal in state: matches are only shown to a person, never recorded unasked (recover-plan.ts).
    group.creators = principalsOf(claim, facts);
  }
  return { home, clients, targets, groups };
}

/** Asks (unless --yes or --dry-run), then stops the provider hosts the killed run left and lets their creates land. */
async function prepare(deps: RecoverDeps, run: RecoverRun, options: RecoverOptions): Promise<void> {
  const { report } = run;
  if (!options.dryRun && !options.yes) {
    const question = `Recover stack ${run.names.stack}: ${run.ours.length} pending create(s)${report.providers.length > 0 ? `, stop ${report.providers.length} left-over provider host(s)` : ""}${run.lock ? ", release the lock" : ""}, then edit the state. Proceed?`;
    if (!(await (deps.sink.confirm?.(question) ?? Promise.resolve(false))))
      throw new CliError(EXIT.refused, "not confirmed: nothing was changed");
  }
  if (!options.dryRun && report.providers.length > 0) {
    for (const host of report.providers) {
      run.processes.terminate(host.pid);
      host.stopped = await gone(run.processes, host.pid, run.sleep);
    }
    await run.sleep(options.settleMs ?? CLIENT_DEFAULTS.createSettleMs);
  }
}

/**
 * Each pending create judged on the service it was sent to: the ids held there, the stack's principal
 * there, that service's listing.
 */
async function look(
  deps: RecoverDeps,
  run: RecoverRun,
  plan: RecoverPlan,
  options: RecoverOptions,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const services: RecoverReport["services"] = [];
  try {
    for (const [service, group] of plan.groups) {
      const lookable = group.target !== undefined && group.pending.some((p) => p.unmatchable === undefined);
      const { records, incomplete, unproven } = lookable
        ? await listForPending(
            plan.clients.for(group.target!),
            group.pending,
            Progress.for(deps.sink, options.progress),
          )
        : { records: [], incomplete: undefined, unproven: new Map<string, string>() };
      const held = new Set<number>();
      for (const resource of endpointResources(run.original.deployment)) {
        const id = heldId(resource);
        const on = heldService(resource, run.revealedState, plan.home);
        // An endpoint whose service the state cannot tell is held on every service: never a candidate.
        if (id !== undefined && (on === undefined || on === service)) held.add(id);
      }
      if (group.target !== undefined) {
        services.push({
          service: group.target.baseUrlSecret ? "(a base URL held secret)" : group.target.service,
          creators: [...group.creators].sort((a, b) => a - b),
          pendingCreates: group.pending.length,
        });
      }
      outcomes.push(
        ...matchPendingCreates(group.pending, records, {
          createdSince: (run.window?.since ?? 0) - CLIENT_DEFAULTS.clockSkewMs,
          held,
          creators: group.creators,
          picks: options.picks,
          incomplete,
          unproven,
        }),
      );
    }
  } finally {
    await plan.clients.close();
  }
  run.report.services = services;
  if (run.report.window !== null)
    run.report.window.creators = [...new Set(services.flatMap((s) => s.creators))].sort((a, b) => a - b);
  fillReport(run.report, outcomes, (urn) => {
    const target = plan.targets.get(urn);
    // A create sent to another service than the one this command connects to: adopt must be pointed there.
    return target?.known === true && target.service !== plan.home.service
      ? { baseUrl: target.baseUrlSecret ? null : target.service }
      : undefined;
  });
  return outcomes;
}

/** Releases the killed run's lock and writes the recorded endpoints into the state (the one effect on it). */
async function write(
  deps: RecoverDeps,
  run: RecoverRun,
  plan: RecoverPlan,
  outcomes: readonly Outcome[],
  options: RecoverOptions,
): Promise<void> {
  const { pulumi } = deps;
  const { report, stackFlag } = run;
  if (run.lock !== undefined && report.lock !== null) {
    await pulumiOk(pulumi, ["cancel", "--yes", ...stackFlag], "releasing the killed run's lock", {
      exitCode: EXIT.unexpected,
    });
    report.lock.released = true;
  }
  if (run.ours.length === 0) return;
  // The import replaces the whole state: it must be the state the matching was done against.
  const again = await pulumiOk(pulumi, ["stack", "export", ...stackFlag], "reading the stack's state again", {
    exitCode: EXIT.unexpected,
  });
  if (
    JSON.stringify(parseState(again, "`pulumi stack export`").deployment) !==
    JSON.stringify(run.original.deployment)
  ) {
    throw new CliError(
      EXIT.refused,
      "the stack's state changed while recover ran (another pulumi command?): nothing was written; run recover again",
    );
  }
  const stamp = new Date((deps.now ?? Date.now)());
  const recorded = outcomes.flatMap((o) => {
    if (o.kind !== "record") return [];
    const target = plan.targets.get(o.pending.urn);
    if (target === undefined || !target.known) return [];
    // The stack it enters: the one the pending create's URN names.
    const entered = {
      service: target.service,
      stack: stackOfUrn(o.pending.urn) ?? `${run.names.project}/${run.names.stack}`,
    };
    const provenance: Provenance =
      o.how === "picked"
        ? { how: "picked", ...entered }
        : o.how === "adopted"
          ? { how: "adopted", ...entered }
          : { how: "created", ...entered, recovered: true };
    const secretValues = [...secretTexts(o.pending.revealedResource.inputs ?? {}), ...target.secretValues];
    return [
      recordedResource(o.pending, o.record, stamp, provenance, {
        secretValues,
        provenanceSecret: target.baseUrlSecret,
      }),
    ];
  });
  await importState(
    pulumi,
    stackFlag,
    recoveredDeployment(run.original, recorded),
    options,
    report,
    run.processes,
  );
  const written = await verify(pulumi, stackFlag, report);
  // What recover recorded stays in the history orphans reads, as an update's result would.
  if (report.recorded.length > 0)
    recordInHistory(run.backend, run.names.project, options.stack ?? run.names.stack, written, stamp);
}

/**
 * The stack's state from `pulumi stack export`. When a `file://` backend's checkpoint cannot be
 * loaded because the killed run left its metadata broken (see repair.ts), the metadata is removed
 * first (a dry run reads the checkpoint file instead), unless a live run holds the stack's lock.
 */
async function readState(
  deps: RecoverDeps,
  options: RecoverOptions,
  projectFile: string,
  backend: string | undefined,
  processes: ProcessProbe,
): Promise<{ state: UntypedDeployment; repaired: RecoverReport["repaired"] }> {
  const args = ["stack", "export", ...stackArgs(options.stack)];
  const first = await pulumiOk(deps.pulumi, args, "reading the stack's state").catch(
    (error: unknown) => error,
  );
  if (typeof first === "string") return { state: parseState(first, "`pulumi stack export`"), repaired: null };
  const message = first instanceof Error ? first.message : String(first);
  const project = projectNameOf(projectFile);
  const broken =
    backend !== undefined && /failed to load checkpoint/i.test(message)
      ? brokenCheckpoints(backend, project, options.stack)
      : [];
  if (broken.length !== 1) throw first;
  const target = broken[0]!;
  const locks = readFileBackendLocks(backend!, project, target.stack) ?? [];
  const live = locks.map((l) => judgeLock(l, processes)).find((v) => v.kind === "live");
  if (live !== undefined)
    throw new CliError(
      EXIT.refused,
      `the stack's checkpoint cannot be read while a run still holds its lock (${live.why}): wait for it to end`,
    );
  const repaired = {
    file: target.attrsFile,
    why: 'the killed run left the checkpoint\'s metadata file empty, so pulumi could not load the stack ("failed to load checkpoint"); the checkpoint itself is intact',
  };
  if (options.dryRun)
    return { state: parseState(readFileSync(target.stateFile, "utf8"), target.stateFile), repaired };
  if (
    !options.yes &&
    !(await (deps.sink.confirm?.(
      `Remove the broken metadata file ${target.attrsFile} so that pulumi can load the stack?`,
    ) ?? Promise.resolve(false)))
  ) {
    throw new CliError(EXIT.refused, "not confirmed: nothing was changed");
  }
  repairCheckpoint(target);
  return {
    state: parseState(
      await pulumiOk(deps.pulumi, args, "reading the stack's state after the repair"),
      "`pulumi stack export`",
    ),
    repaired,
  };
}

function projectNameOf(projectFile: string): string {
  return /^name:\s*["']?([^"'\s]+)/m.exec(readFileSync(projectFile, "utf8"))?.[1] ?? "";
}

function stackNames(
  state: UntypedDeployment,
  stackOption: string | undefined,
  projectFile: string,
): { stack: string; project: string } {
  const urns = [
    ...(state.deployment.resources ?? []).map((r) => r.urn),
    ...(state.deployment.pending_operations ?? []).map((op) => op.resource.urn),
  ];
  const fromUrn = urns.map(parseUrn).find((x) => x !== undefined);
  const project = fromUrn?.project ?? projectNameOf(projectFile);
  const stack = stackOption?.split("/").pop() ?? fromUrn?.stack ?? "";
  return { stack, project };
}

/**
 * The state exported with `--show-secrets`, in memory only: what recover must know of secrets (an
 * explicit provider's token and base URL, a secret name to match, a secret provenance). When it
 * cannot be read (no access to the secrets manager), the plain state stands in, and what is secret
 * there is not looked for.
 */
async function readRevealed(
  pulumi: PulumiRunner,
  stackFlag: string[],
  plain: Deployment,
): Promise<Deployment> {
  const result = await pulumi.run(["stack", "export", "--show-secrets", ...stackFlag]).catch(() => undefined);
  if (result === undefined || result.code !== 0) return plain;
  try {
    return parseState(result.stdout, "`pulumi stack export --show-secrets`").deployment;
  } catch {
    return plain;
  }
}

/** The end of the last update the stack's history records: the interrupted one started after it. */
async function historyBound(
  pulumi: PulumiRunner,
  stackFlag: string[],
): Promise<{ since: number; source: string } | undefined> {
  const result = await pulumi.run(["stack", "history", "--json", ...stackFlag]).catch(() => undefined);
  if (result === undefined || result.code !== 0) return undefined;
  const entries = parsePulumiJson<{ kind?: string; startTime?: string; endTime?: string; result?: string }[]>(
    result.stdout,
    "`pulumi stack history --json`",
  );
  let best: { since: number; source: string } | undefined;
  for (const entry of Array.isArray(entries) ? entries : []) {
    // An update still shown in progress (a service backend) is the interrupted one: its start.
    const inProgress = entry.result === "in-progress" || entry.endTime === undefined;
    const time = Date.parse((inProgress ? entry.startTime : entry.endTime) ?? "");
    if (!Number.isFinite(time)) continue;
    if (best === undefined || time > best.since) {
      best = {
        since: time,
        source: inProgress
          ? `the start of the ${entry.kind ?? "update"} still recorded as in progress`
          : `the end of the last recorded ${entry.kind ?? "update"} (the interrupted one started after it)`,
      };
    }
  }
  return best;
}

function worstVerdict(verdicts: LockVerdict[]): LockVerdict {
  return (
    verdicts.find((v) => v.kind === "live") ?? verdicts.find((v) => v.kind === "unknown") ?? verdicts[0]!
  );
}

function checkLockMayGo(verdict: LockVerdict, releaseLock: boolean): void {
  if (verdict.kind === "live")
    throw new CliError(
      EXIT.refused,
      `the stack is locked by a run that is still going (${verdict.why}): wait for it to end, then run recover if it fails`,
    );
  if (verdict.kind === "unknown" && !releaseLock) {
    throw new CliError(
      EXIT.refused,
      `the stack is locked and ${verdict.why}: if you know that run is dead, run recover again with --release-lock`,
    );
  }
}

function lockReport(lock: LockInfo, verdict: LockVerdict): NonNullable<RecoverReport["lock"]> {
  return {
    holder: `${lock.username}@${lock.hostname} (pid ${lock.pid})`,
    startedAt: new Date(lock.startedAt).toISOString(),
    verdict: verdict.kind,
    why: verdict.why,
    released: false,
  };
}

async function gone(
  processes: ProcessProbe,
  pid: number,
  sleep: (ms: number) => Promise<void>,
): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (processes.commandLine(pid) === undefined) return true;
    await sleep(100);
  }
  return false;
}

function fillReport(
  report: RecoverReport,
  outcomes: readonly Outcome[],
  elsewhere: (urn: string) => { baseUrl: string | null } | undefined,
): void {
  for (const outcome of outcomes) {
    const p = outcome.pending;
    // A name or URL the state holds secret was matched, and is never shown.
    const shown = (key: "webhookName" | "webhookUrl") => (p.secretInputs.includes(key) ? undefined : p[key]);
    const base = {
      urn: p.urn,
      resourceName: p.resourceName,
      webhookName: shown("webhookName"),
      webhookUrl: shown("webhookUrl"),
    };
    if (outcome.kind === "record") {
      report.recorded.push({
        ...base,
        webhookId: outcome.record.webhookId,
        createTime: outcome.record.createTime,
        how: outcome.reason,
      });
    } else if (outcome.kind === "clear") {
      report.cleared.push({ ...base, reason: outcome.reason });
    } else {
      const other = elsewhere(p.urn);
      report.ambiguous.push({
        ...base,
        reason: outcome.reason,
        candidates: outcome.candidates.map((c) => ({
          webhookId: c.webhookId,
          createTime: c.createTime,
          creatorId: c.creatorId,
        })),
        ...(other === undefined ? {} : { elsewhere: other }),
      });
    }
  }
}

/**
 * What `pulumi stack import` said when it failed: pulumi's text, which may quote the state it was
 * given, so with the stack's secrets and the plaintext secrets of that state (the signing secrets
 * recorded) redacted from it.
 */
function importFailure(result: PulumiResult, state: UntypedDeployment, options: RecoverOptions): string {
  const secrets = [...(options.secrets?.inText ?? []), ...secretTexts(state)];
  return pulumiFailure(result, (text) => redactShown(text, secrets));
}

/** `pulumi stack import` from stdin; a lock it reports is released once when its holder is gone. */
async function importState(
  pulumi: PulumiRunner,
  stackFlag: string[],
  state: UntypedDeployment,
  options: RecoverOptions,
  report: RecoverReport,
  processes: ProcessProbe,
): Promise<void> {
  const input = JSON.stringify(state);
  const args = ["stack", "import", ...stackFlag];
  for (let attempt = 0; ; attempt++) {
    const result = await pulumi.run(args, { input });
    if (result.code === 0) return;
    const text = `${result.stderr}\n${result.stdout}`;
    const locked = /currently locked|another update is currently in progress|conflict/i.test(text);
    if (!locked || attempt > 0) {
      const code = /passphrase|secrets manager|decrypt/i.test(text) ? EXIT.config : EXIT.unexpected;
      throw new CliError(
        code,
        `writing the recovered state failed (\`pulumi ${args.join(" ")}\`): ${importFailure(result, state, options)}; the state was not changed`,
      );
    }
    const lock = lockFromError(text);
    const verdict: LockVerdict = lock
      ? judgeLock(lock, processes)
      : { kind: "unknown", why: "the backend does not say who holds it" };
    if (lock) report.lock = lockReport(lock, verdict);
    checkLockMayGo(verdict, options.releaseLock);
    await pulumiOk(pulumi, ["cancel", "--yes", ...stackFlag], "releasing the killed run's lock", {
      exitCode: EXIT.unexpected,
    });
    if (report.lock) report.lock.released = true;
  }
}

/** Reads the state back: every recorded endpoint in it, no pending create left. */
async function verify(
  pulumi: PulumiRunner,
  stackFlag: string[],
  report: RecoverReport,
): Promise<UntypedDeployment> {
  const after = parseState(
    await pulumiOk(pulumi, ["stack", "export", ...stackFlag], "reading the recovered state", {
      exitCode: EXIT.unexpected,
    }),
    "`pulumi stack export`",
  );
  const ids = new Set(endpointResources(after.deployment).map((r) => heldId(r)));
  const missing = report.recorded.filter((r) => !ids.has(r.webhookId)).map((r) => r.resourceName);
  const pending = pendingCreates(after.deployment).ours.map((p) => urnName(p.urn));
  if (missing.length > 0 || pending.length > 0) {
    throw new CliError(
      EXIT.unexpected,
      `the state written does not read back as expected (missing: ${missing.join(", ") || "none"}; still pending: ${pending.join(", ") || "none"})`,
    );
  }
  return after;
}

/**
 * The service's endpoints for matching pending creates: its whole listing; when that cannot prove
 * itself complete (a service that caps its pages without saying so), also the listing of each
 * pending create's name, which can. `unproven`: the pending creates (by URN) whose name's listing
 * could not prove itself complete either, with why: nothing is concluded absent for them.
 */
async function listForPending(
  client: ListingClient,
  pending: readonly PendingCreate[],
  progress: Progress,
): Promise<{
  records: WebhookEndpointRecord[];
  incomplete: string | undefined;
  unproven: Map<string, string>;
}> {
  const all = await listEndpoints(client, {}, progress);
  const unproven = new Map<string, string>();
  if (all.end.complete) return { records: all.records, incomplete: undefined, unproven };
  const byId = new Map(all.records.map((record) => [record.webhookId, record]));
  for (const p of pending) {
    if (p.unmatchable !== undefined || p.webhookName === undefined) continue;
    const named = await listEndpoints(client, { webhookName: p.webhookName, match: "service" }, progress);
    keepFirst(byId, named.records);
    if (!named.end.complete) unproven.set(p.urn, mayBeIncomplete(named.end));
  }
  return {
    records: sortedById(byId),
    incomplete: mayBeIncomplete(all.end),
    unproven,
  };
}

export const recoverCommand: Command = {
  name: "recover",
  summary: "after a killed `pulumi up`: record the endpoints its creates made, clear the rest",
  usage: RECOVER_USAGE,
  options: {
    stack: { type: "string" },
    yes: { type: "boolean", short: "y" },
    "dry-run": { type: "boolean" },
    pick: { type: "string", multiple: true },
    since: { type: "string" },
    "release-lock": { type: "boolean" },
  },
  validate(flags) {
    const since = flags.str("since");
    if (since !== undefined && !Number.isFinite(Date.parse(since)))
      throw usageError(
        `recover: --since must be an ISO time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(showable(since, 40))}`,
      );
  },
  async run(context) {
    const { io, flags } = context;
    const since = flags.str("since");
    await runRecover(
      {
        // Resolved when first needed: recover repairs a broken checkpoint first, before which
        // `pulumi config` cannot read the stack.
        client: context.connect,
        home: async () => {
          await context.connect();
          const resolved = context.connection();
          return {
            service: serviceOf(resolved.connection.client.baseUrl),
            config: resolved.config,
            env: io.env,
            secretConfigKeys: resolved.secretConfigKeys,
          };
        },
        open: context.open,
        onSecrets: (found) => {
          context.addSecrets(found);
          context.addConnectionSecrets(found);
        },
        pulumi: context.pulumi,
        sink: io.sink,
        cwd: io.cwd,
      },
      {
        stack: flags.str("stack"),
        yes: flags.bool("yes"),
        dryRun: flags.bool("dry-run"),
        json: flags.bool("json"),
        progress: flags.bool("progress"),
        releaseLock: flags.bool("release-lock"),
        since: since === undefined ? undefined : Date.parse(since),
        picks: parsePicks(flags.list("pick")),
        get secrets() {
          return context.secrets();
        },
      },
    );
  },
};
