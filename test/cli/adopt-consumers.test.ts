// What `webhooks adopt` prints for pasting is proven by its consumers (docs/adopt-output.md):
// for a property-based corpus of names and URLs another team may choose, held by the emulator, the
// printed TypeScript is parsed by the TypeScript compiler, the printed commands are run by a POSIX
// shell, and the printed YAML is read by the rules of yaml.v3 and Pulumi YAML (consumers.ts; the
// engine reads it in test/e2e/adopt-yaml.test.ts); each yields exactly the service's name, URL and
// id, or the endpoint is refused for that format with a warning that says why.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { WebhooksClient } from "../../src/client/client";
import { runAdopt, type AdoptFormat } from "../../src/cli/commands/adopt";
import { memorySink } from "../../src/cli/output/output";
import { shellQuote } from "../../src/text/shell";
import { readAdoptYaml, readTsDeclarations, runShellCommands } from "./consumers";
import { propertySeed } from "../support/seed";
import { TOKEN } from "./helpers";
import { emulatorHolding, expectedTreatment, hostileEndpoint, hostileText } from "./hostile";

const NATIVE_TYPE = "webhooks:index:WebhookEndpoint";
const RUNS = Number(process.env.ADOPT_PROPERTY_RUNS ?? 150);

/**
 * What each consumer checked, over the whole run (asserted at the end, so the corpus cannot silently shrink
 * to nothing).
 */
const seen = {
  endpoints: 0,
  declared: 0,
  token: 0,
  surrogate: 0,
  interpolating: 0,
  typescript: 0,
  yaml: 0,
  shell: 0,
};
/** A sample of the declared TypeScript, type-checked against the package's own types at the end. */
const typescriptSamples: string[] = [];

async function adopt(client: WebhooksClient, ids: number[], format: AdoptFormat, json = false) {
  const sink = memorySink();
  const outcome = await runAdopt(client, sink, {
    ids,
    format,
    json,
    progress: false,
    secrets: { inText: [TOKEN] },
  }).then(
    () => "printed" as const,
    (error: unknown) => error,
  );
  return { out: sink.out, err: sink.err, outcome };
}

describe("adopt's declarations, read back by their consumers, yield exactly the service's values", () => {
  afterAll(() => {
    // The corpus's size for each consumer, for the report.
    console.log(`adopt consumers corpus: ${JSON.stringify(seen)}`);
  });

  it("for names and URLs another team chose: TypeScript compiler, POSIX shell, yaml.v3 + Pulumi YAML rules", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileEndpoint, { minLength: 1, maxLength: 4 }), async (endpoints) => {
        const emulator = await emulatorHolding(endpoints);
        const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, maxRetries: 0 });
        try {
          const ids = endpoints.map((_, i) => i + 1);
          const treatment = endpoints.map(expectedTreatment);
          const declared = ids.filter((_, i) => treatment[i] === "declared");
          seen.endpoints += endpoints.length;
          seen.declared += declared.length;
          seen.token += treatment.filter((t) => t === "token").length;
          seen.surrogate += treatment.filter((t) => t === "surrogate").length;
          seen.interpolating += endpoints.filter(
            (e, i) => treatment[i] === "declared" && /\$\{/.test(e.name + e.url),
          ).length;
          const service = (id: number) => ({ name: endpoints[id - 1]!.name, url: endpoints[id - 1]!.url });

          const runs = {
            ts: await adopt(client, ids, "ts"),
            yaml: await adopt(client, ids, "yaml"),
            import: await adopt(client, ids, "import"),
            all: await adopt(client, ids, "all"),
            json: await adopt(client, ids, "all", true),
          };
          for (const [format, run] of Object.entries(runs)) {
            // The token is printed nowhere, in no form a person can read.
            expect(holdsToken(run.out + run.err), `${format} output shows the token`).toBe(false);
            // Every refused endpoint is named in a warning that says why.
            ids.forEach((id, i) => {
              if (treatment[i] === "token")
                expect(run.err).toMatch(
                  new RegExp(
                    `warning: endpoint ${id} gets no [^\\n]*declaration: its (name|URL|name and URL) holds? the access token`,
                  ),
                );
              if (treatment[i] === "surrogate")
                expect(run.err).toMatch(
                  new RegExp(
                    `warning: endpoint ${id} gets no [^\\n]*declaration: its (name|URL|name and URL) holds? a lone UTF-16 surrogate: `,
                  ),
                );
            });
            // Exit 5 exactly when nothing could be declared.
            if (declared.length === 0)
              expect((run.outcome as { exitCode?: number }).exitCode, format).toBe(5);
            else expect(run.outcome, format).toBe("printed");
          }

          // TypeScript: the compiler's parse of the printed program.
          const typescript = declared.length === 0 ? [] : readTsDeclarations(runs.ts.out);
          expect(
            typescript.map((d) => ({
              id: d.properties.adoptWebhookId,
              name: d.properties.webhookName,
              url: d.properties.webhookUrl,
            })),
          ).toEqual(declared.map((id) => ({ id, ...service(id) })));
          seen.typescript += typescript.length;
          if (typescript.length > 0 && typescriptSamples.length < 40) typescriptSamples.push(runs.ts.out);

          // The import commands, run by a POSIX shell.
          const commands = declared.length === 0 ? [] : runShellCommands(runs.import.out);
          expect(commands.map((args) => [args[0], args[1], args[3]])).toEqual(
            declared.map((id) => ["import", NATIVE_TYPE, String(id)]),
          );
          expect(commands.every((args) => args.length === 4)).toBe(true);
          seen.shell += commands.length;
          // With --format all, the very same command lines, with nothing after them: a trailing
          // `# <name>` is no comment in an interactive zsh (no interactive comments by default),
          // where a `$(...)` in the name would run.
          const allCommands = runs.all.out.split("\n").filter((line) => line.startsWith("pulumi import "));
          expect(allCommands).toEqual(
            runs.import.out.split("\n").filter((line) => line.startsWith("pulumi import ")),
          );
          expect(allCommands.length).toBe(declared.length);
          if (declared.length > 0) expect(runShellCommands(allCommands.join("\n"))).toEqual(commands);
          // Its TypeScript and YAML blocks are the single formats' own.
          if (declared.length > 0) {
            const allTypescript = runs.all.out.slice(0, runs.all.out.indexOf("\n\n# Pulumi YAML"));
            expect(readTsDeclarations(allTypescript)).toEqual(typescript);
            expect(readAdoptYaml(runs.all.out)).toEqual(readAdoptYaml(runs.yaml.out));
          }

          // YAML: yaml.v3's reading of each scalar, then Pulumi YAML's interpolation.
          const yaml = declared.length === 0 ? [] : readAdoptYaml(runs.yaml.out);
          expect(yaml.map((r) => ({ id: Number(r.import), name: r.webhookName, url: r.webhookUrl }))).toEqual(
            declared.map((id) => ({ id, ...service(id) })),
          );
          seen.yaml += yaml.length;

          // One resource name per endpoint, the same in every format, distinct, never holding the token.
          const names = typescript.map((d) => d.resourceName);
          expect(yaml.map((r) => r.key)).toEqual(names);
          expect(commands.map((args) => args[2])).toEqual(names);
          expect(new Set(names).size).toBe(names.length);

          // --json: the same declarations, null (with the reason) where refused.
          const json = JSON.parse(runs.json.out) as {
            declarations: {
              webhookId: number;
              typescript: string | null;
              yaml: string | null;
              importCommand: string | null;
              refused: Record<string, string>;
            }[];
          };
          expect(
            json.declarations.map((d) => [
              d.webhookId,
              d.typescript !== null,
              d.yaml !== null,
              d.importCommand !== null,
              Object.keys(d.refused).length,
            ]),
          ).toEqual(
            ids.map((id, i) =>
              treatment[i] === "declared" ? [id, true, true, true, 0] : [id, false, false, false, 3],
            ),
          );
        } finally {
          await client.close();
          await emulator.close();
        }
      }),
      {
        numRuns: RUNS,
        seed: propertySeed("ADOPT_SEED", 20_261_127),
        // Once drawn: `%0` takes the token's first letter into an escape for a URL's reader only.
        examples: [
          [
            [
              {
                name: "orders-",
                url: `https://example.com/hooks/%0${TOKEN.slice(0, 5)}\u{E0041}${TOKEN.slice(5)}`,
              },
              { name: "", url: "" },
            ],
          ],
        ],
      },
    );
    expect(seen.declared).toBeGreaterThan(RUNS / 2);
    expect(seen.token).toBeGreaterThan(0);
    expect(seen.surrogate).toBeGreaterThan(0);
    expect(seen.interpolating).toBeGreaterThan(0);
  });

  it("the declared TypeScript type-checks against the package's own types", async () => {
    expect(typescriptSamples.length).toBeGreaterThan(0);
    // Distinct names whose identifiers would be one (`aBWebhook`): one program must still compile.
    const colliding = await emulatorHolding(
      ["a-b", "a_b", "A.b", "a b", "a--b"].map((name, i) => ({
        name,
        url: `https://example.com/hooks/${i}`,
      })),
    );
    try {
      const run = await adopt(
        new WebhooksClient({ baseUrl: colliding.url, accessToken: TOKEN, maxRetries: 0 }),
        [1, 2, 3, 4, 5],
        "ts",
      );
      expect(readTsDeclarations(run.out)).toHaveLength(5);
      typescriptSamples.push(run.out);
    } finally {
      await colliding.close();
    }
    const dir = mkdtempSync(join(tmpdir(), "webhooks-adopt-ts-"));
    try {
      const files = typescriptSamples.map((text, i) => {
        const file = join(dir, `sample${i}.ts`);
        // Each sample is a module of its own (it imports), so equal variable names do not clash.
        writeFileSync(file, text);
        return file;
      });
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        ignoreDeprecations: "6.0",
        esModuleInterop: true,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [join(__dirname, "..", "..", "node_modules", "@types")],
        baseUrl: dir,
        paths: { "pulumi-webhook-endpoints": [join(__dirname, "..", "..", "src", "index.ts")] },
        noUnusedLocals: false,
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file === undefined || files.includes(d.file.fileName))
        .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shellQuote: any text but NUL comes back from a POSIX shell exactly (one command per text)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(hostileText, fc.string({ unit: "binary" })), { minLength: 1, maxLength: 20 }),
        (texts) => {
          // NUL cannot be in a shell word, and a lone surrogate cannot be written as UTF-8: neither reaches
          // shellQuote from adopt.
          const words = texts.map((text) => text.replace(/\0/g, "").replace(/\p{Cs}/gu, "\uFFFD"));
          const script = words.map((word) => `pulumi ${shellQuote(word)}`).join("\n");
          expect(runShellCommands(script)).toEqual(words.map((word) => [word]));
        },
      ),
      { numRuns: 60, seed: propertySeed("ADOPT_SEED", 20_261_128) },
    );
  });
});

/**
 * The token, as a person reads it, in printed text: any case, split by what does not show or by an escape
 * showing it.
 */
function holdsToken(text: string): boolean {
  const seenText = text
    .replace(/\\u\{[0-9a-f]+\}|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}/gi, "")
    .replace(
      /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/gu,
      "",
    );
  return seenText.toLowerCase().includes(TOKEN.toLowerCase());
}
