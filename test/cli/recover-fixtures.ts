import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OrphanProvider, ProcessProbe } from "../../src/cli/stack/lock";
import { DYNAMIC_TYPE, NATIVE_TYPE, type StateResource } from "../../src/cli/stack/deployment";
import { fakePulumi, type FakeCall } from "./helpers";
import { SECRET_SIG, SIG_KEY } from "../../src/core/wire";

/** A state as `pulumi stack export` prints it, for project `shop`, stack `dev`. */
export const STACK = "dev";
export const PROJECT = "shop";
const URN = (type: string, name: string) => `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;
export const STACK_URN = URN("pulumi:pulumi:Stack", `${PROJECT}-${STACK}`);
export const DYNAMIC_PROVIDER = `${URN("pulumi:providers:pulumi-nodejs", "default")}::1111-2222`;
export const NATIVE_PROVIDER = `${URN("pulumi:providers:webhooks", "default_0_2_0")}::3333-4444`;
export const PROVIDER_SOURCE = "exports.handler = __f0; /* the serialized shim */";

/** A secret as an export without --show-secrets shows it; `value` is what its plaintext (JSON) holds. */
export function ciphertext(value: unknown) {
  return {
    [SIG_KEY]: SECRET_SIG,
    ciphertext: `v1:fake:${Buffer.from(JSON.stringify(value)).toString("base64")}`,
  };
}

export function baseResources(): StateResource[] {
  return [
    { urn: STACK_URN, custom: false, type: "pulumi:pulumi:Stack" },
    {
      urn: DYNAMIC_PROVIDER.split("::").slice(0, -1).join("::"),
      id: "1111-2222",
      custom: true,
      type: "pulumi:providers:pulumi-nodejs",
    },
    {
      urn: NATIVE_PROVIDER.split("::").slice(0, -1).join("::"),
      id: "3333-4444",
      custom: true,
      type: "pulumi:providers:webhooks",
    },
  ];
}

/** An endpoint resource the stack holds, as the dynamic face leaves it in state. */
export function heldResource(
  name: string,
  id: number,
  creatorId: number,
  extra: Record<string, unknown> = {},
): StateResource {
  const inputs = {
    __provider: PROVIDER_SOURCE,
    webhookName: name,
    webhookUrl: `https://example.com/hooks/${name}`,
    ...extra,
  };
  return {
    urn: URN(DYNAMIC_TYPE, name),
    custom: true,
    id: String(id),
    type: DYNAMIC_TYPE,
    parent: STACK_URN,
    provider: DYNAMIC_PROVIDER,
    inputs,
    outputs: {
      ...inputs,
      webhookId: id,
      creatorId,
      creatorName: "open-api",
      signSecret: ciphertext(`secret-${id}`),
    },
  };
}

/** A pending create, as the engine leaves it when the CLI dies during the create. */
export function pendingCreate(
  name: string,
  options: { face?: "dynamic" | "native"; inputs?: Record<string, unknown> } = {},
) {
  const face = options.face ?? "dynamic";
  const type = face === "dynamic" ? DYNAMIC_TYPE : NATIVE_TYPE;
  const inputs = {
    ...(face === "dynamic" ? { __provider: PROVIDER_SOURCE } : {}),
    webhookName: name,
    webhookUrl: `https://example.com/hooks/${name}`,
    ...options.inputs,
  };
  return {
    type: "creating",
    resource: {
      urn: URN(type, name),
      custom: true,
      type,
      parent: STACK_URN,
      provider: face === "dynamic" ? DYNAMIC_PROVIDER : NATIVE_PROVIDER,
      inputs,
      propertyDependencies: Object.fromEntries(Object.keys(inputs).map((k) => [k, []])),
      additionalSecretOutputs: ["signSecret", "connection"],
    },
  };
}

export function exportText(resources: StateResource[], pending: unknown[]): string {
  return JSON.stringify({
    version: 3,
    deployment: {
      manifest: { time: "2026-01-02T03:00:00Z", magic: "m", version: "v3.259.0" },
      secrets_providers: { type: "passphrase", state: { salt: "v1:abc" } },
      resources,
      ...(pending.length > 0 ? { pending_operations: pending } : {}),
    },
  });
}

/** A stand-in backend: a file:// directory holding the stack's lock, and a pulumi that edits an in-memory state. */
export class FakeStack {
  readonly root = mkdtempSync(join(tmpdir(), "webhooks-recover-"));
  readonly project = join(this.root, "project");
  readonly backend = join(this.root, "state");
  readonly events: string[] = [];
  state: string;
  imported: string | undefined;
  history: unknown[] = [];
  backendUrl: string;
  importFailures: string[] = [];
  /** `pulumi stack export --show-secrets` fails (no access to the secrets manager). */
  revealFails = false;

  constructor(state: string) {
    this.state = state;
    this.backendUrl = `file://${this.backend}`;
    mkdirSync(this.project, { recursive: true });
    writeFileSync(join(this.project, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: nodejs\n`);
  }

  get attrsFile(): string {
    return join(this.backend, ".pulumi", "stacks", PROJECT, `${STACK}.json.attrs`);
  }

  /** What a CLI killed between writing a checkpoint and its metadata leaves: the checkpoint, and empty metadata. */
  breakCheckpoint(): void {
    const dir = join(this.backend, ".pulumi", "stacks", PROJECT);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${STACK}.json`),
      JSON.stringify({
        version: 3,
        checkpoint: {
          stack: `organization/${PROJECT}/${STACK}`,
          latest: (JSON.parse(this.state) as { deployment: unknown }).deployment,
        },
      }),
    );
    writeFileSync(this.attrsFile, "");
  }

  lock(contents: { pid: number; hostname: string; timestamp: string }): void {
    const dir = join(this.backend, ".pulumi", "locks", "organization", PROJECT, STACK);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "0f0e-lock.json"), JSON.stringify({ ...contents, username: "ci" }));
  }

  pulumi() {
    return fakePulumi({
      "stack export": (call: FakeCall) => {
        const revealed = call.args.includes("--show-secrets");
        this.events.push(revealed ? "export --show-secrets" : "export");
        // A file backend whose checkpoint metadata the killed run left empty cannot load the stack.
        if (existsSync(this.attrsFile) && statSync(this.attrsFile).size === 0)
          return { code: 255, stderr: "error: failed to load checkpoint: EOF\n" };
        if (this.revealFails && revealed)
          return { code: 255, stderr: "error: could not decrypt: incorrect passphrase\n" };
        // What --show-secrets prints: each secret's plaintext (JSON) instead of its ciphertext.
        return {
          stdout: revealed
            ? this.state.replace(
                /"ciphertext":"v1:fake:([A-Za-z0-9+/=]*)"/g,
                (_m, b64: string) => `"plaintext":${JSON.stringify(Buffer.from(b64, "base64").toString())}`,
              )
            : this.state,
        };
      },
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: this.backendUrl }) }),
      "stack history --json": () => ({ stdout: JSON.stringify(this.history) }),
      "cancel --yes": () => {
        this.events.push("cancel");
        rmSync(join(this.backend, ".pulumi", "locks"), { recursive: true, force: true });
        return { stdout: "The currently running update for 'dev' has been canceled!" };
      },
      "stack import": (call: FakeCall) => {
        this.events.push("import");
        const failure = this.importFailures.shift();
        if (failure !== undefined) return { code: 255, stderr: failure };
        this.imported = call.input;
        // What `pulumi stack import` does: keep the resources (plaintext secrets encrypted), drop pending operations.
        const parsed = JSON.parse(call.input ?? "{}") as {
          deployment: { resources: StateResource[]; pending_operations?: unknown };
        };
        delete parsed.deployment.pending_operations;
        this.state = JSON.stringify(parsed).replace(
          /"plaintext":("(?:[^"\\]|\\.)*")/g,
          (_m, text: string) =>
            `"ciphertext":"v1:fake:${Buffer.from(JSON.parse(text) as string).toString("base64")}"`,
        );
        return { stdout: "Import complete." };
      },
    });
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The machine as recover sees it: hostname, processes, provider hosts, engines. */
export class FakeProcesses implements ProcessProbe {
  readonly commands = new Map<number, string>();
  readonly hosts: OrphanProvider[] = [];
  readonly liveEngines = new Set<string>();
  readonly terminated: number[] = [];
  constructor(
    private readonly events: string[],
    private readonly host = "ci-runner-7",
  ) {}
  hostname(): string {
    return this.host;
  }
  commandLine(pid: number): string | undefined {
    return this.commands.get(pid);
  }
  providerHosts(): OrphanProvider[] {
    return this.hosts.filter((h) => this.commands.has(h.pid));
  }
  async listening(address: string): Promise<boolean> {
    return this.liveEngines.has(address);
  }
  terminate(pid: number): void {
    this.events.push(`terminate ${pid}`);
    this.terminated.push(pid);
    this.commands.delete(pid);
  }
}
