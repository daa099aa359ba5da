// A secret is a taint, not a field (README.md, "What happens on each command"; docs/dynamic-resource.md,
// "Outputs"; docs/native-provider.md, "Secrets on the native face"), proven through the real engine on both faces: for
// generated programs (which of the endpoint's inputs and which provider settings the program marks
// secret, and their values), no value so marked ever shows in plaintext in state (every file the
// backend keeps), in outputs, in what preview, up, refresh and destroy print (diffs, drift,
// notices), in a refusal's message, or in what the operator CLI prints in the project; and the
// outputs of the secret inputs read back as secrets. Each run walks one stack through preview, up,
// a no-change preview, drift on the service, refresh, a refused replacement, a replacement and
// destroy. The in-process property tests (test/native/taint.test.ts, test/core/taint.test.ts)
// cover many more programs; this one proves the engine's half: what it stores and shows.
//
// TAINT_ENGINE_RUNS generated programs per face (default: 1 in npm test, 4 in npm run test:deep),
// TAINT_ENGINE_SEED replays one.
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProcess } from "../../scripts/harness/process.mjs";
import { Project } from "../../scripts/harness/pulumi.mjs";
import { sized } from "../support/tier.mjs";
import { BASE_DIR, REPO } from "./paths";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { backendFor, transcript } from "./support";
import { propertySeed } from "../support/seed";

/** Every file under a directory, as [path, text]. */
function filesUnder(dir: string): [string, string][] {
  return readdirSync(dir).flatMap((entry): [string, string][] => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [[path, readFileSync(path, "utf8")]];
  });
}

const RUNS = Number(process.env.TAINT_ENGINE_RUNS ?? sized({ ci: 1, deep: 4 }));
const SEED = { seed: propertySeed("TAINT_ENGINE_SEED", 20_261_131) };
const BIN_DIR = join(BASE_DIR, "node_modules", ".bin");
const WEBHOOKS_BIN = join(BIN_DIR, "webhooks");
const emulators: Emulator[] = [];
afterAll(async () => {
  for (const emulator of emulators) await emulator.close();
});

type Face = "dynamic" | "native" | "native-default";

interface Program {
  face: Face;
  /** Inputs and settings the program marks secret. */
  secret: string[];
  marker: string;
  useConnection: boolean;
}

const INPUTS = ["name", "url"] as const;
const NATIVE_SETTINGS = ["baseUrl", "timeoutMs", "createSettleMs", "pageSize", "ascending"] as const;

/** Text searched for each secret value: case-insensitive, whole numbers only where they stand alone. */
function shows(text: string, secret: string): boolean {
  return /^\d+$/.test(secret)
    ? new RegExp(`(?<![\\d.])${secret}(?![\\d.])`).test(text)
    : text.toLowerCase().includes(secret.toLowerCase());
}

async function runProgram(program: Program, run: number): Promise<void> {
  const emulator = await startEmulator({ accessToken: `taint_e2e_token_${run}_9d3f71a2` });
  emulators.push(emulator);
  const token = `taint_e2e_token_${run}_9d3f71a2`;
  const suite = `taint-${program.face}-${run}`;
  const backend = backendFor(suite);
  const lines: string[] = [];
  const env = { ...backend.env, PATH: `${BIN_DIR}:${process.env.PATH ?? ""}` };
  const project = Project.create(
    join(
      REPO,
      "test/e2e/programs",
      program.face === "dynamic"
        ? "taint-dynamic"
        : program.face === "native"
          ? "taint-native"
          : "taint-native-default",
    ),
    join(BASE_DIR, "projects", suite),
    { env, transcript: lines },
  );
  const m = `${program.marker}${run}`;
  const values: Record<string, string> = {
    name: `Taint-Name-${m}`,
    url: `https://hooks.example.com/taint/Url-${m}?key=K${m}`,
    baseUrl: emulator.url,
    timeoutMs: String(41_000 + run),
    maxRetries: "2",
    createSettleMs: String(3_100 + run),
    // A page size above the emulator's 100 is clamped: a value no other number in the output looks like.
    pageSize: String(4_170 + run),
    ascending: "true",
  };
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  const plaintextConfig: Record<string, string> = {};
  const put = (key: string, value: string, isSecret: boolean) => ((isSecret ? secret : plain)[key] = value);
  for (const key of INPUTS) put(key, values[key]!, program.secret.includes(key));
  if (program.face === "dynamic") {
    plaintextConfig.secretKeys = JSON.stringify(
      program.secret.filter((k) => (INPUTS as readonly string[]).includes(k) || k === "connBaseUrl"),
    );
    if (program.useConnection) {
      plain.useConnection = "true";
      put("connBaseUrl", emulator.url, program.secret.includes("connBaseUrl"));
      secret.connToken = token;
    } else {
      put("webhooks:baseUrl", emulator.url, program.secret.includes("baseUrl"));
      secret["webhooks:accessToken"] = token;
    }
  } else if (program.face === "native") {
    for (const key of NATIVE_SETTINGS) put(key, values[key]!, program.secret.includes(key));
    put("maxRetries", values.maxRetries!, program.secret.includes("maxRetries"));
    // The token: set without --secret here (`--plaintext`), so that only the schema makes it secret.
    plaintextConfig.token = token;
  } else {
    for (const key of NATIVE_SETTINGS) put(`webhooks:${key}`, values[key]!, program.secret.includes(key));
    // Without --secret: the schema alone makes the token secret in the default provider's inputs.
    plaintextConfig["webhooks:accessToken"] = token;
  }
  await project.initStack("dev", plain, secret);
  // Pulumi refuses to store a value that looks like a token in plaintext unless told to.
  for (const [key, value] of Object.entries(plaintextConfig))
    await project.ok(["config", "set", "--plaintext", key, value]);
  const cliEnv = {
    ...env,
    PULUMI_CONFIG_PASSPHRASE: "e2e-test-passphrase",
    NO_COLOR: "1",
    WEBHOOKS_BASE_URL: emulator.url,
    WEBHOOKS_ACCESS_TOKEN: token,
  };
  const cli = async (...args: string[]) => {
    const result = await runProcess(WEBHOOKS_BIN, args, { cwd: project.dir, env: cliEnv });
    lines.push(`$ webhooks ${args.join(" ")}\n${result.output}`);
    return result;
  };

  // `up` without --skip-preview prints the preview's diff first.
  await project.ok(["up", "--yes", "--diff"]);
  await project.ok(["preview", "--diff", "--expect-no-changes"]);
  const outputs = JSON.parse((await project.ok(["stack", "output", "--json"])).stdout) as Record<
    string,
    unknown
  >;
  // The outputs of the inputs the program marked secret read back as secrets.
  for (const key of INPUTS)
    expect(outputs[key] === "[secret]", `output ${key} secret`).toBe(program.secret.includes(key));
  const record = emulator.records()[0]!;
  expect(record.webhook_name).toBe(values.name);

  // Drift on the service: preview says why it will replace, refresh reads the endpoint anew.
  emulator.updateRecord(record.webhook_id, { webhook_url: `${values.url}&drift=1` });
  await project.ok(["preview", "--diff"]);
  emulator.updateRecord(record.webhook_id, { webhook_url: values.url! });
  await project.ok(["refresh", "--yes", "--skip-preview", "--diff"]);

  // A replacement onto a name and URL someone else holds is refused, naming it.
  // Not containing the first URL: the other team's endpoint must not show the first secret by accident.
  const url2 = values.url!.replace("/Url-", "/Url2-");
  emulator.addRecord({ webhook_name: values.name!, webhook_url: url2 });
  await project.ok(["config", "set", ...(program.secret.includes("url") ? ["--secret"] : []), "url", url2]);
  const refused = await project.run(["up", "--yes", "--skip-preview", "--diff"]);
  expect(refused.code, "a create of an existing name and URL is refused").not.toBe(0);
  expect(refused.output).toMatch(/already exists/);
  const url3 = values.url!.replace("/Url-", "/Url3-");
  await project.ok(["config", "set", ...(program.secret.includes("url") ? ["--secret"] : []), "url", url3]);
  await project.ok(["up", "--yes", "--skip-preview", "--diff"]);

  // The operator CLI in the project: what it prints never shows the stack's secrets.
  for (const args of [
    ["list"],
    ["list", "--json"],
    ["orphans", "--stack", "dev"],
    ["orphans", "--stack", "dev", "--json"],
    ["recover", "--dry-run"],
    ["adopt", "--id", String(record.webhook_id), "--format", "all"],
  ]) {
    await cli(...args);
  }

  await project.ok(["destroy", "--yes", "--skip-preview"]);
  transcript.push(...lines);

  // maxRetries (a small count) and ascending ("true") are marked when generated, but a text search
  // cannot tell them from other text: they are not searched for.
  // On the dynamic face one of the two base URL settings is used, by `useConnection`: the other one is
  // never set, so marking it says nothing (the emulator's URL is then plain config, which the engine
  // copies into the default provider's inputs as given).
  const unused = program.face !== "dynamic" ? "" : program.useConnection ? "baseUrl" : "connBaseUrl";
  const searchable = program.secret.filter(
    (key) => key !== "maxRetries" && key !== "ascending" && key !== unused,
  );
  const secrets = [
    ...new Set([
      ...searchable.map((key) => (key === "connBaseUrl" ? emulator.url : values[key]!)),
      ...(program.secret.includes("url") ? [url2, url3] : []),
      token,
    ]),
  ];
  // Every file the backend keeps, by name; a token the test itself set in plaintext config is
  // searched for only where the product writes (state, not the config snapshot in *.history.json).
  const files = filesUnder(backend.dir);
  // The commands the test typed to set config are its own words, not the product's output.
  const printed = lines
    .map((text, i): [string, string] => [`command ${i}: ${text.split("\n", 1)[0]}`, text])
    .filter(([label]) => !/: \$ pulumi config set /.test(label));
  const haystacks: [string, string][] = [...files, ...printed];
  const where = (secret: string) =>
    haystacks
      .filter(
        ([label, text]) =>
          shows(text, secret) &&
          !(
            secret === token &&
            program.face !== "dynamic" &&
            /\.history\.json$|Pulumi\.[^/]*\.yaml$/.test(label)
          ),
      )
      // The refused URL is another team's endpoint's: the service lists it for everyone, and the CLI shows the service.
      .filter(([label]) => !(secret === url2 && /: \$ webhooks /.test(label)))
      .map(([label, text]) => {
        const at = text.toLowerCase().indexOf(secret.toLowerCase());
        return `${label}: …${text.slice(Math.max(0, at - 160), at + secret.length + 40).replace(/\s+/g, " ")}…`;
      });
  const leaked = secrets.flatMap((secret) => where(secret).map((w) => `${secret} in ${w}`));
  expect(leaked, `program ${JSON.stringify(program)}: secret values in plaintext`).toEqual([]);
  // The search sees real text: every value not marked secret shows somewhere.
  for (const key of INPUTS)
    if (!program.secret.includes(key))
      expect(
        haystacks.some(([, text]) => text.includes(values[key]!)),
        `${key} visible`,
      ).toBe(true);
}

describe(
  "through the real engine, a value the program marks secret never shows in plaintext (property-based)",
  { tags: ["budgeted"] },
  () => {
    let run = 0;
    const marker = fc.stringMatching(/^[a-z0-9]{8}$/);
    // Each generated program is a whole lifecycle through the engine (a minute or two on a busy 2-core
    // machine); a failure is not shrunk.
    const PER_RUN_MS = 15 * 60_000;
    it(
      "the dynamic resource: its inputs, its connection, the stack's webhooks:* config",
      { timeout: PER_RUN_MS * RUNS },
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              secret: fc.subarray(["name", "url", "baseUrl", "connBaseUrl"]),
              useConnection: fc.boolean(),
              marker,
            }),
            async ({ secret, useConnection, marker: mark }) =>
              runProgram({ face: "dynamic", secret, useConnection, marker: mark }, ++run),
          ),
          { numRuns: RUNS, endOnFailure: true, ...SEED },
        );
      },
    );
    it(
      "the native provider: the endpoint's inputs and an explicit provider's every setting (its token secret by the schema)",
      { timeout: PER_RUN_MS * RUNS },
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.record({ secret: fc.subarray(["name", "url", ...NATIVE_SETTINGS, "maxRetries"]), marker }),
            async ({ secret, marker: mark }) =>
              runProgram({ face: "native", secret, useConnection: false, marker: mark }, ++run),
          ),
          { numRuns: RUNS, endOnFailure: true, ...SEED },
        );
      },
    );
    it(
      "the native provider's default provider: the stack's webhooks:* config, set with --secret or not",
      { timeout: PER_RUN_MS * RUNS },
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.record({ secret: fc.subarray(["name", "url", ...NATIVE_SETTINGS]), marker }),
            async ({ secret, marker: mark }) =>
              runProgram({ face: "native-default", secret, useConnection: false, marker: mark }, ++run),
          ),
          { numRuns: RUNS, endOnFailure: true, ...SEED },
        );
      },
    );
  },
);
