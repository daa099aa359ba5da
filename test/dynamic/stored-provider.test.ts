import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import Module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/**
 * The source of the text every WebhookEndpoint stores (src/dynamic/stored-provider.js, not its
 * minified build), exercised directly on real directory layouts: the lookup order, the skipping
 * and the error that the text's documentation and the README promise. test/dynamic/serialized.test.ts
 * runs the built text the same way in child processes, with Node's global folders set.
 *
 * Evaluated as Pulumi's dynamic-provider host evaluates the stored text, by require-from-string
 * with no file name: imported from its place in this package, Node would resolve the package's
 * name to the package itself (self-reference) before looking anywhere else.
 */
const REPO = resolve(__dirname, "../..");
const requireFromString = createRequire(
  join(REPO, "node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js"),
)("require-from-string") as (code: string) => unknown;
const { handler, locateProvider, STACK } = requireFromString(
  readFileSync(join(REPO, "src/dynamic/stored-provider.js"), "utf8"),
) as typeof import("../../src/dynamic/stored-provider");
const PACKAGE = "pulumi-webhook-endpoints";
const FOUND = Symbol.for(`${PACKAGE}/provider`);

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "pwe-stored-")));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/**
 * A copy of the package at `dir`: `exportsProvider` true exports ./provider (built unless `built`
 * is false), false exports only ".", "none" has no exports map. Its provider answers `check` with
 * `tag`, so a test can tell copies apart. Returns the file its ./provider resolves to.
 */
function copyAt(
  dir: string,
  tag: string,
  { exportsProvider = true, built = true }: { exportsProvider?: boolean | "none"; built?: boolean } = {},
): string {
  mkdirSync(join(dir, "lib"), { recursive: true });
  const exportsMap =
    exportsProvider === "none"
      ? undefined
      : exportsProvider
        ? { ".": "./lib/index.js", "./provider": "./lib/provider.js" }
        : { ".": "./lib/index.js" };
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: PACKAGE, version: "1.0.0", main: "./lib/provider.js", exports: exportsMap }),
  );
  if (built)
    writeFileSync(
      join(dir, "lib", "provider.js"),
      `exports.provider = { check: async (olds, news) => ({ inputs: { ...news, copy: ${JSON.stringify(tag)} } }) };`,
    );
  return join(dir, "lib", "provider.js");
}

const notInstalled = (workingDir: string, unusable = "") =>
  `${PACKAGE} is not installed where the program runs (${workingDir})${unusable}: install it there (npm install ${PACKAGE}, pnpm add ${PACKAGE} or yarn add ${PACKAGE}) and run the command again`;

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

describe("where the stored text looks for the package", () => {
  it("takes the copy in the program's node_modules", () => {
    const program = join(root, "program");
    const entry = copyAt(join(program, "node_modules", PACKAGE), "program");
    expect(locateProvider(program, join(root, "gone", "provider.js"))).toBe(entry);
  });

  it("takes a copy in a directory above the program, the nearest first", () => {
    const program = join(root, "repo", "stacks", "orders");
    mkdirSync(program, { recursive: true });
    const top = copyAt(join(root, "node_modules", PACKAGE), "top");
    expect(locateProvider(program, join(root, "gone", "provider.js"))).toBe(top);
    const nearer = copyAt(join(root, "repo", "node_modules", PACKAGE), "repo");
    expect(locateProvider(program, join(root, "gone", "provider.js"))).toBe(nearer);
  });

  it("takes pnpm's hoisted store (a wrapper library's dependency) after its directory's node_modules, before any directory above", () => {
    const program = join(root, "packages", "program");
    mkdirSync(program, { recursive: true });
    // A pnpm store keeps the package elsewhere and links it into .pnpm/node_modules.
    const stored = join(root, "store", ".pnpm", `${PACKAGE}@1.0.0`, "node_modules", PACKAGE);
    copyAt(stored, "hoisted");
    mkdirSync(join(program, "node_modules", ".pnpm", "node_modules"), { recursive: true });
    symlinkSync(stored, join(program, "node_modules", ".pnpm", "node_modules", PACKAGE), "dir");
    // A copy in a directory above the project (anyone's, in a shared directory) does not come first.
    copyAt(join(root, "node_modules", PACKAGE), "above");
    expect(locateProvider(program, join(root, "gone", "provider.js"))).toBe(
      join(stored, "lib", "provider.js"),
    );
    // The project's own node_modules comes before its store.
    const direct = copyAt(join(program, "node_modules", PACKAGE), "direct");
    expect(locateProvider(program, join(root, "gone", "provider.js"))).toBe(direct);
  });

  it("in a program inside a node_modules, takes the copy beside it and never one of Node's global folders", () => {
    const program = join(root, "app", "node_modules", "program");
    mkdirSync(program, { recursive: true });
    const beside = copyAt(join(root, "app", "node_modules", "node_modules", PACKAGE), "beside");
    const global = join(root, "global");
    copyAt(join(global, PACKAGE), "global");
    const previous = process.env.NODE_PATH;
    process.env.NODE_PATH = global;
    (Module as unknown as { _initPaths(): void })._initPaths();
    try {
      expect(locateProvider(program, join(root, "gone", "provider.js"))).toBe(beside);
      rmSync(join(beside, ".."), { recursive: true });
      // With it gone, the global copy is still not taken.
      expect(() => locateProvider(program, join(root, "gone", "provider.js"))).toThrow(/is not installed/);
    } finally {
      if (previous === undefined) delete process.env.NODE_PATH;
      else process.env.NODE_PATH = previous;
      (Module as unknown as { _initPaths(): void })._initPaths();
    }
  });

  it("passes over, and never reads, a package.json that is not a file", () => {
    const program = join(root, "program");
    const fifo = join(program, "node_modules", PACKAGE);
    mkdirSync(fifo, { recursive: true });
    execFileSync("mkfifo", [join(fifo, "package.json")]);
    // In a child process, so that a read (which would block for good) fails this test at its bound
    // instead of holding the test run.
    const script = `
      const Module = require("node:module");
      const m = new Module("");
      m._compile(require("node:fs").readFileSync(${JSON.stringify(join(REPO, "src/dynamic/stored-provider.js"))}, "utf8"), "");
      try { m.exports.locateProvider(${JSON.stringify(program)}, "/gone/provider.js"); } catch (error) { process.stdout.write(error.message); }`;
    expect(execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 })).toBe(
      notInstalled(program),
    );
  });

  it("names a copy whose ./provider leads out of it", () => {
    const program = join(root, "program");
    const leaking = join(program, "node_modules", ".pnpm", "node_modules", PACKAGE);
    copyAt(leaking, "leaking", { built: false });
    mkdirSync(join(root, "outside"), { recursive: true });
    writeFileSync(join(root, "outside", "provider.js"), "exports.provider = {};");
    symlinkSync(join(root, "outside", "provider.js"), join(leaking, "lib", "provider.js"));
    const error = thrown(() => locateProvider(program, join(root, "gone", "provider.js")));
    expect(error.message).toBe(
      notInstalled(
        program,
        `; copies found but unusable: ${leaking} (./provider outside it: ${join(root, "outside", "provider.js")})`,
      ),
    );
  });

  it("falls back to where the program loaded the package from, the one path the text embeds", () => {
    const program = join(root, "program");
    mkdirSync(program, { recursive: true });
    const loadedFrom = copyAt(join(root, "elsewhere", PACKAGE), "loaded");
    expect(locateProvider(program, loadedFrom)).toBe(loadedFrom);
  });

  it("skips copies that cannot provide ./provider, takes the next usable one, and names none of them", () => {
    const program = join(root, "program");
    copyAt(join(program, "node_modules", PACKAGE), "no-provider", { exportsProvider: false });
    copyAt(join(root, "node_modules", PACKAGE), "no-exports", { exportsProvider: "none" });
    const loadedFrom = copyAt(join(root, "elsewhere", PACKAGE), "loaded");
    expect(locateProvider(program, loadedFrom)).toBe(loadedFrom);
  });

  it("with nothing usable, names every copy it skipped and why, where the program runs and how to install, without a stack", () => {
    const program = join(root, "program");
    const noProvider = join(program, "node_modules", PACKAGE);
    copyAt(noProvider, "a", { exportsProvider: false });
    const notBuilt = join(root, "node_modules", PACKAGE);
    copyAt(notBuilt, "b", { built: false });
    const broken = join(root, "node_modules", ".pnpm", "node_modules", PACKAGE);
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, "package.json"), "{ not json");
    const error = thrown(() => locateProvider(program, join(root, "gone", "provider.js")));
    // JSON.parse's own words (they vary with Node's version) after the broken copy's SyntaxError.
    const shown = error.message.replace(/\(SyntaxError: .+\): install it/, "(SyntaxError): install it");
    expect(shown).toBe(
      notInstalled(
        program,
        `; copies found but unusable: ${noProvider} (no ./provider in it), ${notBuilt} (MODULE_NOT_FOUND), ${broken} (SyntaxError)`,
      ),
    );
    expect(error.stack).toBe(error.message);
  });

  it("with no copy anywhere, says the package is not installed where the program runs", () => {
    const program = join(root, "program");
    mkdirSync(program, { recursive: true });
    const error = thrown(() => locateProvider(program, join(root, "gone", "provider.js")));
    expect(error.message).toBe(notInstalled(program));
    expect(error.stack).toBe(error.message);
  });
});

describe("the provider object the host gets", () => {
  const home = process.cwd();
  afterEach(() => {
    process.chdir(home);
    delete (globalThis as Record<symbol, unknown>)[FOUND];
  });

  /**
   * A provider that answers every method with its arguments, and (`faces`) the face for a stack that
   * answers with the stack too: which face the text called, and with what.
   */
  function echoingProvider(copy: string, faces: boolean): void {
    writeFileSync(
      join(copy, "lib", "provider.js"),
      `const methods = ${JSON.stringify(["configure", "check", "diff", "create", "read", "update", "delete"])};
      const echo = (stack) => Object.fromEntries(methods.map((m) => [m, async (...args) => ({ stack, args })]));
      exports.provider = echo(null);
      ${faces ? "exports.provider.forStack = (stack) => echo(stack);" : ""}`,
    );
  }

  /** The stored text's handler in a program whose one copy of the package has `echoingProvider`. */
  function echoingHandler(version: string, faces: boolean) {
    const program = join(root, "program");
    const copy = join(program, "node_modules", PACKAGE);
    copyAt(copy, version);
    echoingProvider(copy, faces);
    process.chdir(program);
    return handler() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  }

  it("loads nothing until a method is called, then finds the package once per process and forwards every call", async () => {
    const program = join(root, "program");
    const copy = join(program, "node_modules", PACKAGE);
    copyAt(copy, "first");
    process.chdir(program);
    const provider = handler();
    expect(Object.keys(provider).sort()).toEqual([
      "check",
      "configure",
      "create",
      "delete",
      "diff",
      "read",
      "update",
    ]);
    expect((globalThis as Record<symbol, unknown>)[FOUND]).toBeUndefined();
    expect(await provider.check({}, { webhookName: "a" })).toEqual({
      inputs: { webhookName: "a", copy: "first" },
    });
    // Found once: with the copy gone, this text and another resource's text still reach it.
    rmSync(copy, { recursive: true });
    expect(await provider.check({}, { webhookName: "b" })).toEqual({
      inputs: { webhookName: "b", copy: "first" },
    });
    expect(await handler().check({}, { webhookName: "c" })).toEqual({
      inputs: { webhookName: "c", copy: "first" },
    });
  });

  it("calls every method of the provider's face for the text's stack, with the host's arguments as they are", async () => {
    const provider = echoingHandler("one", true);
    const olds = { webhookName: "old", __provider: "old text" };
    const news = { webhookName: "new", __provider: "this text" };
    const faced = (args: unknown[]) => ({ stack: STACK, args });
    expect(await provider.configure!({ config: "c" })).toEqual(faced([{ config: "c" }]));
    expect(await provider.check!(olds, news)).toEqual(faced([olds, news]));
    expect(await provider.diff!("1", olds, news)).toEqual(faced(["1", olds, news]));
    expect(await provider.create!(news)).toEqual(faced([news]));
    expect(await provider.read!("1", olds)).toEqual(faced(["1", olds]));
    expect(await provider.update!("1", olds, news)).toEqual(faced(["1", olds, news]));
    expect(await provider.delete!("1", olds)).toEqual(faced(["1", olds]));
  });

  it("calls a package without stack faces (0.2.0, after a downgrade) as it is", async () => {
    const provider = echoingHandler("old", false);
    const news = { webhookName: "new", __provider: "this text" };
    expect(await provider.create!(news)).toEqual({ stack: null, args: [news] });
    expect(await provider.check!({}, news)).toEqual({ stack: null, args: [{}, news] });
  });

  it("fails on the first call, not when the text is evaluated, when the package is nowhere", () => {
    const program = join(root, "program");
    mkdirSync(program, { recursive: true });
    process.chdir(program);
    const provider = handler();
    const error = thrown(() => provider.check({}, {}));
    expect(error.message).toBe(notInstalled(program));
  });
});
