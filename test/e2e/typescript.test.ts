// Every tsconfig the docs document, proven the way Pulumi runs a TypeScript program: a `pulumi
// preview` of the quickstart program with that tsconfig, in a project that has the packed package,
// the newest SDK and that TypeScript (and, where a case says so, ts-node 10), through the real
// engine. `tsc --noEmit` is not enough: Pulumi compiles with ts-node and its own default compiler
// options, so a tsconfig `tsc` accepts can fail under `pulumi up` (test/e2e/typescript-setups.ts
// says how; it holds the cases and their expected outcomes, which the docs' table is checked
// against in test/docs/typescript-table.test.ts).
//
// A case "works" when preview runs the program and plans the endpoint (create: 2, the stack and
// the endpoint); it "fails" with exactly the TypeScript errors its case names. Whether a working
// setup is type-checked is shown by a program with a type error.
//
// Projects: TypeScript 6.0 without ts-node is the e2e base project's install (the checkout's
// TypeScript); every other install is a project of its own in a temporary directory, started in
// the background from beforeAll. Tiers: npm test runs TypeScript 6.0's two recommended setups (the
// template + ignoreDeprecations, and nodenext) on the base project, with no install of their own;
// npm run test:deep every case, and TypeScript 7.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { installProjectAsync, type Installed } from "../../scripts/harness/pack.mjs";
import { readJson, repoVersion } from "../../scripts/harness/repo.mjs";
import { TIER } from "../support/tier.mjs";
import { BASE_DIR, PACK_DIR, REPO } from "./paths";
import { Project, backendFor, leaks, readTree, transcript } from "./support";
import {
  TS_NODE,
  TYPESCRIPT_SPEC,
  caseId,
  typescriptCases,
  type Outcome,
  type TypeScriptCase,
  type TypeScriptVersion,
} from "./typescript-setups";

const TOKEN = "e2e_tok_typescript_3c9e51a7d2b8";
const QUICKSTART = join(REPO, "examples", "quickstart");
const CASES = typescriptCases(REPO);
/** Appended to the program by a type-error case: ts-node refuses it with TS2322. */
const TYPE_ERROR = '\nexport const wrong: number = "not a number";\n';

interface PreviewJson {
  changeSummary?: Record<string, number>;
}

/** The TypeScript error codes a run printed, each once, sorted. */
function errorCodes(output: string): string[] {
  return [...new Set([...output.matchAll(/error (TS\d+)/g)].map((match) => match[1]!))].sort();
}

/** Runs at most `n` of the functions given to it at once, the others in turn as slots free up. */
function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running < n) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

function describeOutcome(outcome: Outcome): string {
  if ("fails" in outcome) return `fails with ${outcome.fails.join(", ")}`;
  return outcome.typeChecked ? "works" : "works, and nothing type-checks it";
}

function caseTitle(testCase: TypeScriptCase): string {
  const project = [
    `TypeScript ${testCase.typescript}`,
    testCase.tsNode ? `ts-node ${TS_NODE}` : "no ts-node",
    testCase.typeError ? "a program with a type error" : undefined,
  ].filter((part) => part !== undefined);
  return `${testCase.row.label} (${project.join(", ")}): pulumi preview ${describeOutcome(testCase.expected)}`;
}

/** Which install a case runs in. */
function installKey(typescript: TypeScriptVersion, tsNode: boolean): string {
  return `ts${typescript}${tsNode ? "-ts-node" : ""}`;
}

describe("the documented tsconfig setups, run the way Pulumi runs TypeScript", () => {
  let emulator: Emulator;
  let scratch: string;
  let tarball: string;
  const backends: string[] = [];
  const installs = new Map<string, Promise<string>>();
  const seconds: Record<string, number> = {};

  const running = CASES.filter((testCase) => TIER === "deep" || testCase.inNpmTest);

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    scratch = mkdtempSync(join(tmpdir(), "pwe-typescript-"));
    const packed = readdirSync(PACK_DIR).filter((file) => file.endsWith(".tgz"));
    expect(packed).toHaveLength(1);
    tarball = join(PACK_DIR, packed[0]!);
    // The base project: the checkout's TypeScript (6.0), no ts-node.
    expect(
      readJson<{ version: string }>(join(BASE_DIR, "node_modules", "typescript", "package.json")).version,
    ).toMatch(/^6\.0\./);
    installs.set(installKey("6.0", false), Promise.resolve(BASE_DIR));
    const needed = new Set(running.map((testCase) => installKey(testCase.typescript, testCase.tsNode)));
    for (const typescript of ["5.9", "6.0"] as const) {
      for (const tsNode of [false, true]) {
        const key = installKey(typescript, tsNode);
        if (installs.has(key) || !needed.has(key)) continue;
        const dir = join(scratch, key);
        const devDependencies: Record<string, string> = {
          typescript: typescript === "6.0" ? repoVersion("typescript") : TYPESCRIPT_SPEC[typescript],
          "@types/node": repoVersion("@types/node"),
          ...(tsNode ? { "ts-node": TS_NODE } : {}),
        };
        const install = installProjectAsync(dir, { tarball, devDependencies }).then(
          (installed: Installed) => {
            expect(installed.dir).toBe(dir);
            return dir;
          },
        );
        install.catch(() => undefined); // reported by the case that awaits it
        installs.set(key, install);
      }
    }
  });
  afterAll(async () => {
    console.log(`[typescript] seconds per case: ${JSON.stringify(seconds)}`);
    await emulator?.close();
    // An install no case awaited (a run filtered with -t) may still be writing into the directory.
    await Promise.allSettled(installs.values());
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  /** Two previews at a time: each runs the CLI, the language host, ts-node and the provider host. */
  const slot = limiter(2);

  /** The quickstart program with the case's tsconfig, below the install `root`. */
  function projectFor(root: string, testCase: TypeScriptCase): Project {
    const id = caseId(testCase);
    const backend = backendFor(`typescript-${id}`);
    backends.push(backend.dir);
    const overrides: Record<string, string> = {
      "tsconfig.json": `${JSON.stringify({ compilerOptions: testCase.row.compilerOptions(testCase.typescript), files: ["index.ts"] }, null, 2)}\n`,
    };
    if (testCase.row.esm === true)
      overrides["package.json"] = `${JSON.stringify({ name: id, private: true, type: "module" }, null, 2)}\n`;
    if (testCase.typeError)
      overrides["index.ts"] = readFileSync(join(QUICKSTART, "index.ts"), "utf8") + TYPE_ERROR;
    return Project.create(QUICKSTART, join(root, "projects", id), {
      env: backend.env,
      transcript,
      overrides,
    });
  }

  /** `pulumi preview` of a fresh stack of the project, connected to the emulator. */
  async function preview(project: Project): Promise<{ code: number; output: string; stdout: string }> {
    await project.ok(["stack", "init", "dev"]);
    await project.ok([
      "config",
      "set-all",
      "--plaintext",
      `webhooks:baseUrl=${emulator.url}`,
      "--secret",
      `webhooks:accessToken=${TOKEN}`,
    ]);
    const result = await project.run(["preview", "--json"]);
    return { code: result.code, output: result.stdout + result.stderr, stdout: result.stdout };
  }

  function expectOutcome(run: { code: number; output: string; stdout: string }, expected: Outcome): void {
    const report = run.output.slice(-4000);
    if ("fails" in expected) {
      expect(run.code, report).not.toBe(0);
      expect(errorCodes(run.output), report).toEqual(expected.fails);
    } else {
      expect(run.code, report).toBe(0);
      expect(errorCodes(run.output), report).toEqual([]);
      expect((JSON.parse(run.stdout) as PreviewJson).changeSummary, report).toEqual({ create: 2 });
    }
  }

  describe.concurrent("each case, two at a time", { timeout: 900_000 }, () => {
    for (const testCase of CASES) {
      it(caseTitle(testCase), testCase.inNpmTest ? {} : { tags: ["deep"] }, async () => {
        const root = await installs.get(installKey(testCase.typescript, testCase.tsNode))!;
        const project = projectFor(root, testCase);
        const run = await slot(async () => {
          const started = Date.now();
          const result = await preview(project);
          seconds[caseId(testCase)] = Math.round((Date.now() - started) / 100) / 10;
          return result;
        });
        expectOutcome(run, testCase.expected);
      });
    }
  });

  it(
    "TypeScript 7: npm refuses it beside @pulumi/pulumi (ERESOLVE); forced in, pulumi preview fails in ts-node",
    { tags: ["deep"], timeout: 900_000 },
    async () => {
      const dir = join(scratch, "ts7.0");
      const devDependencies = {
        typescript: TYPESCRIPT_SPEC["7.0"],
        "@types/node": repoVersion("@types/node"),
      };
      // @pulumi/pulumi declares TypeScript below 7 as its (optional) peer: a plain install refuses.
      const refused = await installProjectAsync(dir, { tarball, devDependencies }).then(
        () => undefined,
        (error: unknown) => String(error),
      );
      expect(refused, "npm installed TypeScript 7 beside @pulumi/pulumi").toBeDefined();
      expect(refused).toMatch(/ERESOLVE/);
      expect(refused).toMatch(/peerOptional typescript@"[^"]*< 7"/);
      // A user who forces it (--legacy-peer-deps, here through the project's .npmrc).
      writeFileSync(join(dir, ".npmrc"), "legacy-peer-deps=true\n");
      await installProjectAsync(dir, { tarball, devDependencies });
      expect(
        readJson<{ version: string }>(join(dir, "node_modules", "typescript", "package.json")).version,
      ).toMatch(/^7\./);
      const testCase = CASES.find((candidate) => candidate.row.id === "nodenext" && !candidate.typeError)!;
      const run = await slot(() => preview(projectFor(dir, { ...testCase, typescript: "7.0" })));
      expect(run.code, run.output.slice(-4000)).not.toBe(0);
      expect(run.output).toMatch(/ts-node/);
      expect(run.output).not.toMatch(/"create": 2/);
    },
  );

  it(
    "no token appears in plaintext in what the CLI printed or in the backends",
    { tags: ["budgeted"] },
    () => {
      expect(running.length).toBeGreaterThan(0);
      expect(leaks([TOKEN], [transcript.join("\n"), ...backends.map((dir) => readTree(dir))])).toEqual([]);
    },
  );
});
