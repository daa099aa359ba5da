// The package as a user installs it: `npm pack`, installed into a throwaway project next to
// @types/node, then a strict program using every entry point is type-checked with `tsc --noEmit`,
// without skipLibCheck, by TypeScript 5.9 and 6.0 under the classic settings (commonjs + node10),
// Pulumi's TypeScript template and nodenext. Then the packed tarball goes through
// @arethetypeswrong/cli (every resolution mode) and `publint --strict`.
//
// This is what `tsc` says: that the package's declarations type-check in every resolution mode.
// What `pulumi up` does with the same tsconfigs differs where Pulumi's own compiler options and
// ts-node decide (the template without moduleResolution passes here and fails there with TS5110):
// that is proven through the engine in test/e2e/typescript.test.ts, from the same tsconfigs
// (test/e2e/typescript-setups.ts).
//
// Only the npm registry is needed. TypeScript, attw and publint are installed once per version
// spec into ~/.cache/pulumi-webhook-endpoints/tools/<spec>/ (PWE_CACHE_DIR moves the cache) and
// reused; the consumer project is new each run, installed with --prefer-offline. Each check runs
// `tsc --noEmit --incremental` with its build info kept in ~/.cache/pulumi-webhook-endpoints/
// types-check/: TypeScript re-checks what changed (this package's declarations, the program) and
// everything that depends on it, and reuses the verdict on the unchanged dependencies' declarations
// (@pulumi/pulumi, grpc, @types/node), which are most of the work. A missing or stale build info
// only makes the check slower, never laxer: TypeScript compares every file by content hash.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLASSIC,
  NODENEXT,
  PULUMI_TEMPLATE,
  PULUMI_TEMPLATE_WITHOUT_RESOLUTION,
} from "../e2e/typescript-setups";
import { CONSUMER_PROGRAM, ESM_CONSUMER_PROGRAM } from "./consumer";

const REPO = resolve(__dirname, "../..");
const CACHE =
  process.env.PWE_CACHE_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-webhook-endpoints");
const TOOLS = join(CACHE, "tools");
const BUILD_INFO = join(CACHE, "types-check");

const TYPESCRIPT_VERSIONS = ["5.9", "6.0"] as const;
type TypeScriptVersion = (typeof TYPESCRIPT_VERSIONS)[number];
const ATTW = "@arethetypeswrong/cli@0.18";
const PUBLINT = "publint@0.3";
/** The Node.js types of the reference runtime (Node 24). */
const NODE_TYPES = "@types/node@24";

/** The entry points and what their declarations may import from outside the package. */
const ENTRY_POINTS = [".", "./emulator", "./provider", "./native"] as const;
const ALLOWED_EXTERNAL_IMPORTS = /^(@pulumi\/pulumi(\/.*)?|undici)$/;

interface TypeCheckCase {
  /** Names the check's tsconfig and its cached build info. */
  id: string;
  typescript: TypeScriptVersion;
  settings: string;
  compilerOptions: Record<string, unknown>;
  esm?: boolean;
  /** The only error codes expected; none means the program must type-check cleanly. */
  expectErrors?: string[];
}

const CASES: TypeCheckCase[] = [
  {
    id: "ts5.9-classic",
    typescript: "5.9",
    settings: "classic (commonjs, node10, strict)",
    compilerOptions: CLASSIC,
  },
  {
    id: "ts6.0-classic",
    typescript: "6.0",
    settings: 'classic (commonjs, node10, strict) + ignoreDeprecations "6.0"',
    compilerOptions: { ...CLASSIC, ignoreDeprecations: "6.0" },
  },
  {
    id: "ts5.9-template",
    typescript: "5.9",
    settings: "Pulumi's template tsconfig, unchanged",
    compilerOptions: PULUMI_TEMPLATE,
  },
  // The advice in docs/dynamic-resource.md for TypeScript 6.0 users of Pulumi's template, as `tsc` sees it:
  {
    id: "ts6.0-template",
    typescript: "6.0",
    settings: "Pulumi's template tsconfig, unchanged",
    compilerOptions: PULUMI_TEMPLATE,
    expectErrors: ["TS5107"],
  },
  {
    id: "ts6.0-template-ignore-deprecations",
    typescript: "6.0",
    settings: 'Pulumi\'s template tsconfig + ignoreDeprecations "6.0"',
    compilerOptions: { ...PULUMI_TEMPLATE, ignoreDeprecations: "6.0" },
  },
  {
    id: "ts6.0-template-no-resolution",
    typescript: "6.0",
    settings: "Pulumi's template tsconfig without moduleResolution",
    compilerOptions: PULUMI_TEMPLATE_WITHOUT_RESOLUTION,
  },
  // ... and why `ignoreDeprecations: "6.0"` is advice for 6.0 only. (The template without moduleResolution
  // passes `tsc`, and fails under `pulumi up`: test/e2e/typescript.test.ts.)
  {
    id: "ts5.9-template-ignore-deprecations",
    typescript: "5.9",
    settings: 'Pulumi\'s template tsconfig + ignoreDeprecations "6.0"',
    compilerOptions: { ...PULUMI_TEMPLATE, ignoreDeprecations: "6.0" },
    expectErrors: ["TS5103"],
  },
  {
    id: "ts5.9-nodenext",
    typescript: "5.9",
    settings: "nodenext (CommonJS and ES module programs)",
    compilerOptions: NODENEXT,
    esm: true,
  },
  {
    id: "ts6.0-nodenext",
    typescript: "6.0",
    settings: "nodenext (CommonJS and ES module programs)",
    compilerOptions: NODENEXT,
    esm: true,
  },
];

interface Run {
  code: number;
  output: string;
}

function run(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<Run> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, output: `${stdout}${stderr}`.replace(/^npm warn Unknown user config.*\n/gm, "") });
      },
    );
  });
}

async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${result.code}:\n${result.output}`);
  return result.output;
}

/** Installs an npm package spec once into the cache (atomically: concurrent runs may race) and returns its prefix. */
async function cachedTool(spec: string): Promise<string> {
  const prefix = join(TOOLS, spec.replaceAll("/", "+"));
  const ready = join(prefix, ".installed");
  if (existsSync(ready)) return prefix;
  await mkdir(TOOLS, { recursive: true });
  const staging = await mkdtemp(join(TOOLS, ".staging-"));
  try {
    await mustRun(
      "npm",
      [
        "install",
        "--prefix",
        staging,
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--no-package-lock",
        spec,
      ],
      staging,
    );
    await writeFile(join(staging, ".installed"), `${spec}\n`);
    if (existsSync(prefix) && !existsSync(ready)) await rm(prefix, { recursive: true, force: true }); // not ours: unfinished
    await rename(staging, prefix).catch((error: unknown) => {
      if (!existsSync(ready)) throw error; // else another run installed it meanwhile: use its copy
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return prefix;
}

/** Stores a check's build info for the next run (write and rename: concurrent runs may race). */
async function keepBuildInfo(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const staging = `${to}.${process.pid}.tmp`;
  await copyFile(from, staging);
  await rename(staging, to);
}

function toolBin(prefix: string, pkg: string, bin: string): string {
  return join(prefix, "node_modules", pkg, bin);
}

async function installedVersion(prefix: string, pkg: string): Promise<string> {
  return (
    JSON.parse(await readFile(join(prefix, "node_modules", pkg, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
}

/** A line of `tsc --listFiles` naming a file of the program (an absolute path), not a diagnostic. */
function isListedFile(line: string): boolean {
  return line.startsWith("/") && !/\(\d+,\d+\): /.test(line);
}

function errorCodes(output: string): string[] {
  return [...new Set([...output.matchAll(/error (TS\d+)/g)].map((match) => match[1]!))].sort();
}

let work: string;
let tarball: string;
let consumer: string;
let installedPackage: string;
let packedFiles: string[];
const typescript = new Map<TypeScriptVersion, string>();

describe("the packed package, as a user project sees it", () => {
  beforeAll(async () => {
    // dist/ is built by the suite's global setup.
    work = await mkdtemp(join(tmpdir(), "pwe-types-"));
    const packed = JSON.parse(
      await mustRun("npm", ["pack", "--json", "--loglevel=error", "--pack-destination", work], REPO),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = join(work, packed[0]!.filename);
    packedFiles = packed[0]!.files.map((file) => file.path);

    consumer = join(work, "consumer");
    await mkdir(consumer);
    await writeFile(
      join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", version: "1.0.0", private: true }),
    );
    await writeFile(join(consumer, "index.ts"), CONSUMER_PROGRAM);
    await writeFile(join(consumer, "esm.mts"), ESM_CONSUMER_PROGRAM);
    const [, ...prefixes] = await Promise.all([
      mustRun(
        "npm",
        [
          "install",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          "--loglevel=error",
          "--no-package-lock",
          tarball,
          NODE_TYPES,
        ],
        consumer,
      ),
      ...TYPESCRIPT_VERSIONS.map((version) => cachedTool(`typescript@${version}`)),
    ]);
    TYPESCRIPT_VERSIONS.forEach((version, index) => typescript.set(version, prefixes[index]!));
    installedPackage = join(consumer, "node_modules", "pulumi-webhook-endpoints");
  }, 900_000);

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  for (const check of CASES) {
    const expectation =
      check.expectErrors === undefined ? "type-checks" : `fails only with ${check.expectErrors.join(", ")}`;
    it(`TypeScript ${check.typescript}, ${check.settings}: ${expectation}`, async () => {
      const name = `tsconfig.${check.id}.json`;
      const files = check.esm === true ? ["index.ts", "esm.mts"] : ["index.ts"];
      await writeFile(
        join(consumer, name),
        JSON.stringify({ compilerOptions: { ...check.compilerOptions, noEmit: true }, files }, null, 2),
      );
      const prefix = typescript.get(check.typescript)!;
      const tsc = toolBin(prefix, "typescript", "bin/tsc");
      const version = await installedVersion(prefix, "typescript");
      // The build info lives at the same place relative to the program in every run (paths in it are relative).
      const buildInfo = join(consumer, ".tsbuildinfo", `${check.id}.json`);
      const cachedBuildInfo = join(BUILD_INFO, `${check.id}.json`);
      await mkdir(dirname(buildInfo), { recursive: true });
      if (existsSync(cachedBuildInfo)) await copyFile(cachedBuildInfo, buildInfo);
      const result = await run(
        process.execPath,
        [
          tsc,
          "-p",
          name,
          "--pretty",
          "false",
          "--listFiles",
          "--incremental",
          "--tsBuildInfoFile",
          buildInfo,
        ],
        consumer,
      );
      if (result.code === 0 && existsSync(buildInfo)) await keepBuildInfo(buildInfo, cachedBuildInfo);
      const lines = result.output.split("\n");
      const diagnostics = lines
        .filter((line) => !isListedFile(line))
        .join("\n")
        .trim();
      const report = `tsc ${version} -p ${name} exited ${result.code}:\n${diagnostics}`;
      if (check.expectErrors === undefined) {
        expect(result.code, report).toBe(0);
        expect(diagnostics, report).toBe("");
        // The package's declarations must not pull zod (or its classic-settings errors) into the program.
        expect(lines.filter((line) => isListedFile(line) && line.includes("/node_modules/zod/"))).toEqual([]);
      } else {
        expect(result.code, report).not.toBe(0);
        expect(errorCodes(result.output), report).toEqual(check.expectErrors);
      }
    }, 300_000);
  }

  it("the public declarations import nothing from a dependency but @pulumi/pulumi and undici", async () => {
    const manifest = JSON.parse(await readFile(join(installedPackage, "package.json"), "utf8")) as {
      exports: Record<string, { types?: string } | string>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    const seen = new Set<string>();
    const outside: string[] = [];
    const queue: string[] = [];
    for (const entry of ENTRY_POINTS) {
      const target = manifest.exports[entry];
      expect(
        typeof target === "object" ? target.types : undefined,
        `exports["${entry}"].types`,
      ).toBeDefined();
      queue.push(join(installedPackage, (target as { types: string }).types));
      // node10 resolution ignores "exports": typesVersions must name the same file.
      if (entry !== ".")
        expect(manifest.typesVersions["*"]![entry.slice(2)]).toEqual([(target as { types: string }).types]);
    }
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const { importedFiles, typeReferenceDirectives } = ts.preProcessFile(
        await readFile(file, "utf8"),
        true,
        true,
      );
      for (const { fileName: specifier } of importedFiles) {
        if (specifier.startsWith(".")) {
          const base = resolve(dirname(file), specifier);
          const next = [`${base}.d.ts`, join(base, "index.d.ts")].find((candidate) => existsSync(candidate));
          expect(
            next,
            `${relative(installedPackage, file)} imports ${specifier}, which has no declaration file`,
          ).toBeDefined();
          queue.push(next!);
        } else if (!ALLOWED_EXTERNAL_IMPORTS.test(specifier)) {
          outside.push(`${relative(installedPackage, file)} imports ${specifier}`);
        }
      }
      for (const { fileName } of typeReferenceDirectives)
        outside.push(`${relative(installedPackage, file)} references types ${fileName}`);
    }
    expect(outside).toEqual([]);
  });

  it("ships nothing only the plugin's release archives use: no plugin bundle, no archive builder, no postject or commander installed", () => {
    // The archives are release files (npm run release:archives, docs/native-plugin.md); what builds them
    // stays in the repository.
    expect(packedFiles.filter((file) => /^dist\/plugin\/|archive|^scripts\//.test(file))).toEqual([]);
    for (const name of ["postject", "commander", "esbuild"])
      expect(existsSync(join(consumer, "node_modules", name)), `node_modules/${name}`).toBe(false);
  });

  it("ships LICENSE, README, source maps and declaration maps whose sources are in the tarball, and no tests", async () => {
    const shipped = new Set(packedFiles);
    for (const required of [
      "LICENSE",
      "README.md",
      "package.json",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/index.js.map",
      "dist/index.d.ts.map",
      "src/index.ts",
    ]) {
      expect(shipped, required).toContain(required);
    }
    expect(packedFiles.filter((file) => /^(test|examples|scripts|bench)\/|tsconfig/.test(file))).toEqual([]);
    const unmapped: string[] = [];
    for (const file of packedFiles) {
      if (!/^dist\/.*\.(js|d\.ts)$/.test(file)) continue;
      if (!shipped.has(`${file}.map`)) {
        unmapped.push(`${file} has no map`);
        continue;
      }
      const map = JSON.parse(await readFile(join(installedPackage, `${file}.map`), "utf8")) as {
        sources: string[];
        sourceRoot?: string;
      };
      for (const source of map.sources) {
        const target = relative(
          installedPackage,
          resolve(installedPackage, dirname(file), map.sourceRoot ?? "", source),
        );
        if (!shipped.has(target))
          unmapped.push(`${file}.map points at ${target}, which is not in the tarball`);
      }
    }
    expect(unmapped).toEqual([]);
  });

  it("@arethetypeswrong/cli finds no problem in any entry point under node10, node16 (CJS and ESM) and bundler", async () => {
    const prefix = await cachedTool(ATTW);
    // --no-definitely-typed: the package ships its own types, and no @types lookup needs the network.
    const result = await run(
      process.execPath,
      [
        toolBin(prefix, "@arethetypeswrong/cli", "dist/index.js"),
        tarball,
        "--profile",
        "strict",
        "--format",
        "ascii",
        "--no-color",
        "--no-definitely-typed",
      ],
      work,
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("No problems found");
    for (const entry of ENTRY_POINTS)
      expect(result.output).toContain(`"pulumi-webhook-endpoints${entry === "." ? "" : entry.slice(1)}"`);
  }, 600_000);

  it("publint --strict finds nothing", async () => {
    const prefix = await cachedTool(PUBLINT);
    const result = await run(
      process.execPath,
      [toolBin(prefix, "publint", "src/cli.js"), "run", tarball, "--strict"],
      work,
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("All good!");
  }, 600_000);
});
