import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { LINKED_DIR, REPO } from "../support/global-setup";
import { TOKEN } from "../support/helpers";
import {
  builtProviderText,
  declareUnderMocks,
  loadProviderText,
  type Registered,
} from "../support/provider-text";

/**
 * What the engine stores in `__provider` is captured under Pulumi's mocks, then loaded from its
 * text the way the dynamic-provider host loads it, and driven against the emulator.
 */
describe("the serialized provider", () => {
  let emulator: Emulator;
  let registered: Registered[];
  let loaded: string[];
  let properties: Record<string, string[]>;
  const SECRET_MARKER = "4dabf18193072939515e22adb298388d";

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    ({ registered, loaded, properties } = declareUnderMocks({
      FIXTURE_TOKEN: TOKEN,
      FIXTURE_BASE_URL: emulator.url,
    }));
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("uses the product's type token and a fresh props object per resource", () => {
    expect(registered.map((r) => r.type)).toEqual(
      Array.from({ length: 3 }, () => "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint"),
    );
    const byName = Object.fromEntries(registered.map((r) => [r.name, r.inputs]));
    expect(byName["caller-options"]).toMatchObject({
      webhookName: "named-b",
      webhookUrl: "https://example.com/b",
    });
    // webhookName defaults to the resource name.
    expect(byName["with-connection"]).toMatchObject({ webhookName: "with-connection" });
  });

  it("registers the resource's outputs and nothing else the program does not need", () => {
    // Each property the program registers costs it promises with recorded stack traces, per resource
    // (docs/performance.md): the outputs the docs list, the provider text, and only when it holds
    // something, the connection and the list of inputs marked secret.
    const outputs = [
      "webhookId",
      "webhookName",
      "webhookUrl",
      "signSecret",
      "creatorId",
      "creatorName",
      "createTime",
      "operatorId",
      "operatorName",
      "operateTime",
      "adoptWebhookId",
      "provenance",
    ];
    const always = [...outputs, "__provider", "id", "urn"];
    expect(properties["caller-options"]).toEqual([...always].sort());
    expect(properties["with-connection"]).toEqual([...always, "connection"].sort());
    expect(properties["secret-name"]).toEqual([...always, "__secretInputs"].sort());
  });

  it("is small, identical for every resource, holds no token and only requires the package", () => {
    const texts = new Set(registered.map((r) => r.inputs.__provider));
    expect(texts.size).toBe(1);
    const text = [...texts][0]!;
    // Stored twice per resource and sent in every engine call: smaller than what Pulumi's closure
    // serializer makes of even a no-op provider (about 1.8 KB), and written compact.
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1300);
    // The one other value it holds: the program's stack, which an endpoint's provenance records.
    expect(text).toContain(JSON.stringify("serialize-test/dev"));
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(emulator.url);
    // It loads the installed package by name (Node resolving it from each copy found in the
    // program's directory, the directories above and pnpm's hoisted stores), so a package upgrade
    // reaches resources created by older versions.
    expect(text).toContain('"pulumi-webhook-endpoints"');
    expect(text).toContain(".resolve(");
    // Nothing of the package's own code is inlined.
    expect(text).not.toMatch(/WebhooksClient|undici|zod/);
  });

  it("declaring endpoints does not load the client's dependencies", () => {
    // The program runs on every preview and up: zod and undici (about 0.15 s) load in the provider
    // host, where requests are made, not in the program.
    expect(registered).toHaveLength(3);
    expect(loaded).toEqual([]);
  });

  it("tells the provider which inputs the program marked secret, from plain values and from Outputs", () => {
    // Plain values cannot be secret: the list is known at once (no config key is secret here).
    const inputsOf = (name: string) => registered.find((r) => r.name === name)!.inputs;
    // None marked (the access token is kept out of every message wherever it is set): no list at all.
    expect(inputsOf("caller-options")).not.toHaveProperty("__secretInputs");
    // An Output's secrecy is awaited: the secret name is listed, the plain Output URL is not.
    expect(inputsOf("secret-name").__secretInputs).toEqual(["webhookName"]);
  });

  it("stores a resource's connection input as a secret", () => {
    const connection = registered.find((r) => r.name === "with-connection")!.inputs.connection as Record<
      string,
      unknown
    >;
    expect(connection[SECRET_MARKER]).toBeDefined();
  });

  it("loaded from its text, drives the whole lifecycle against the emulator", async () => {
    const provider = loadProviderText(registered[0]!.inputs.__provider);
    await provider.configure!({
      config: {
        get: (k: string) => ({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN })[k],
        require: () => "",
      },
    });
    const inputs = { webhookName: "from-text", webhookUrl: "https://example.com/from-text" };
    expect((await provider.check!({}, inputs)).failures).toBeUndefined();
    const created = await provider.create(inputs);
    expect(emulator.counters().create).toBe(1);
    const read = await provider.read!(created.id, created.outs);
    expect(read.props).toEqual(created.outs);
    expect(await provider.diff!(created.id, created.outs, inputs)).toMatchObject({ changes: false });
    expect((await provider.update!(created.id, created.outs, inputs)).outs).toEqual(created.outs);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await provider.delete!(created.id, created.outs);
    expect(log).toHaveBeenCalledWith(
      expect.stringContaining(`webhook endpoint ${created.id} ("from-text") still exists on the service`),
    );
    log.mockRestore();
    expect(emulator.records()).toHaveLength(1);
  });

  /**
   * Runs `text` the way the dynamic-provider host does (a module compiled from the text with an
   * empty file name, `handler()` for the provider), in a fresh node process working in `cwd`:
   * calls `check` `times` times and prints how often the package's provider entry was resolved and
   * what the calls answered or threw.
   */
  function runText(
    text: string,
    cwd: string,
    times: number,
    env: NodeJS.ProcessEnv = process.env,
  ): { resolutions: number; results: string[] } {
    const scratch = mkdtempSync(join(tmpdir(), "pwe-shim-"));
    try {
      const file = join(scratch, "provider.txt");
      writeFileSync(file, text);
      const script = `
        const Module = require("node:module");
        let resolutions = 0;
        const resolve = Module._resolveFilename;
        Module._resolveFilename = function (request, ...rest) {
          if (request === "pulumi-webhook-endpoints/provider") resolutions++;
          return resolve.call(this, request, ...rest);
        };
        const m = new Module("");
        m.paths = Module._nodeModulePaths(process.cwd());
        m._compile(require("node:fs").readFileSync(${JSON.stringify(file)}, "utf8"), "");
        const provider = m.exports.handler();
        (async () => {
          const results = [];
          for (let i = 0; i < ${times}; i++) {
            try { results.push(JSON.stringify(await provider.check({}, { webhookName: "n" + i, webhookUrl: "https://example.com/" + i }))); }
            catch (error) { results.push("error: " + error.message + (error.stack === error.message ? "" : " [with a stack]")); }
          }
          process.stdout.write(JSON.stringify({ resolutions, results }));
        })();`;
      return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd, env, encoding: "utf8" })) as {
        resolutions: number;
        results: string[];
      };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  it("destroy loads neither zod nor undici in the provider host; check loads only zod", () => {
    // A destroy of many endpoints makes no request and checks nothing: the host should not pay for
    // the HTTP stack or the input schemas (about 0.2 s of module loading).
    const script = `
      const Module = require("node:module");
      const m = new Module("");
      m.paths = Module._nodeModulePaths(process.cwd());
      m._compile(${JSON.stringify(builtProviderText(REPO))}, "");
      const provider = m.exports.handler();
      const deps = () => [...new Set(Object.keys(require.cache).map((f) => (/node_modules\\/(zod|undici)\\//.exec(f) || [])[1]).filter(Boolean))].sort();
      (async () => {
        await provider.configure({ config: { get: () => undefined } });
        const logged = [];
        console.log = (line) => logged.push(line);
        for (const id of ["11", "12", "13"]) await provider.delete(id, { webhookName: "d" + id, webhookUrl: "https://example.com/d" });
        const afterDelete = deps();
        const checked = await provider.check({}, { webhookName: "n", webhookUrl: "not a url" });
        process.stdout.write(JSON.stringify({ afterDelete, afterCheck: deps(), logged, failures: checked.failures.length }));
      })();`;
    const out = JSON.parse(
      execFileSync(process.execPath, ["-e", script], {
        cwd: LINKED_DIR,
        env: { ...process.env, WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
        encoding: "utf8",
      }),
    ) as { afterDelete: string[]; afterCheck: string[]; logged: string[]; failures: number };
    expect(out.afterDelete).toEqual([]);
    expect(out.logged).toHaveLength(3);
    expect(out.logged[0]).toContain('webhook endpoint 11 ("d11") still exists on the service');
    expect(out.afterCheck).toEqual(["zod"]);
    expect(out.failures).toBe(1);
  });

  it("valid endpoints and documented answers load neither zod nor undici in the provider host: check, create, read, diff", async () => {
    // zod loads only to name what is wrong with an input or an answer (50-100 ms of the host's CPU
    // in every up, preview and refresh otherwise); what is valid is checked by hand, as the schemas check it.
    // Requests go through Node's own http module (undici was 50-75 ms of CPU and 27 MB of RSS to load).
    const script = `
      const Module = require("node:module");
      const m = new Module("");
      m.paths = Module._nodeModulePaths(process.cwd());
      m._compile(${JSON.stringify(builtProviderText(REPO))}, "");
      const provider = m.exports.handler();
      const deps = () => [...new Set(Object.keys(require.cache).map((f) => (/node_modules\\/(zod|undici)\\//.exec(f) || [])[1]).filter(Boolean))].sort();
      (async () => {
        await provider.configure({ config: { get: () => undefined } });
        const inputs = { webhookName: "no-zod", webhookUrl: "https://example.com/no-zod" };
        const checked = await provider.check({}, inputs);
        const created = await provider.create(inputs);
        const read = await provider.read(created.id, created.outs);
        const diff = await provider.diff(created.id, created.outs, inputs);
        const afterValid = deps();
        const refused = await provider.check({}, { webhookName: "n", webhookUrl: "not a url" });
        process.stdout.write(JSON.stringify({ afterValid, afterRefused: deps(), checked: checked.failures ?? [], found: read.id === created.id, changes: diff.changes, refused: refused.failures.length }));
      })();`;
    // Not execFileSync: the emulator answering it runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], {
      cwd: LINKED_DIR,
      env: { ...process.env, WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
      encoding: "utf8",
    });
    const out = JSON.parse(stdout) as {
      afterValid: string[];
      afterRefused: string[];
      checked: unknown[];
      found: boolean;
      changes: boolean;
      refused: number;
    };
    expect(out).toMatchObject({ checked: [], found: true, changes: false, refused: 1 });
    expect(out.afterValid).toEqual([]);
    expect(out.afterRefused).toEqual(["zod"]);
  });

  it("finds the package once per provider host process, not on every engine call", () => {
    const { resolutions, results } = runText(builtProviderText(REPO), LINKED_DIR, 25);
    expect(results).toHaveLength(25);
    for (const result of results)
      expect(JSON.parse(result)).toMatchObject({ inputs: { webhookName: expect.any(String) } });
    expect(resolutions).toBe(1);
  });

  /** A package named pulumi-webhook-endpoints at `dir` that is not this one: its check says so. */
  /** A copy whose exports map has ./provider (true), lacks it (false), or that has no exports map at all ("none"). */
  function impostor(dir: string, exportsProvider: boolean | "none"): void {
    mkdirSync(join(dir, "lib"), { recursive: true });
    const exportsMap =
      exportsProvider === "none"
        ? undefined
        : exportsProvider
          ? { ".": "./lib/provider.js", "./provider": "./lib/provider.js" }
          : { ".": "./lib/provider.js" };
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "pulumi-webhook-endpoints",
        version: "9.9.9",
        main: "./lib/provider.js",
        exports: exportsMap,
      }),
    );
    writeFileSync(
      join(dir, "lib", "provider.js"),
      "exports.provider = { check: async () => ({ inputs: { impostor: true } }) };",
    );
  }

  /**
   * A usable copy in Node's global folders (~/.node_modules under a HOME in `root`, also NODE_PATH): the
   * environment that points there.
   */
  function usableGlobalCopy(root: string): NodeJS.ProcessEnv {
    const home = join(root, "home");
    impostor(join(home, ".node_modules", "pulumi-webhook-endpoints"), true);
    return { ...process.env, HOME: home, NODE_PATH: join(home, ".node_modules") };
  }

  it("skips a copy that cannot provide its ./provider entry, and never looks in Node's global folders", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "pwe-copies-")));
    try {
      const program = join(root, "program");
      // A copy in the program's node_modules whose package.json exports no ./provider (a foreign
      // or broken install): skipped for the copy the program loaded.
      impostor(join(program, "node_modules", "pulumi-webhook-endpoints"), false);
      const env = usableGlobalCopy(root);
      const found = runText(builtProviderText(REPO), program, 1, env);
      expect(JSON.parse(found.results[0]!)).toMatchObject({ inputs: { webhookName: "n0" } });
      // Nothing usable anywhere: the error names the copy it could not use, and has no stack.
      const { results } = runText(builtProviderText(join(root, "gone")), program, 1, env);
      expect(results[0]).toBe(
        `error: pulumi-webhook-endpoints is not installed where the program runs (${program}); copies found but unusable: ${join(program, "node_modules", "pulumi-webhook-endpoints")} (no ./provider in it): install it there (npm install pulumi-webhook-endpoints, pnpm add pulumi-webhook-endpoints or yarn add pulumi-webhook-endpoints) and run the command again`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("skips a copy without an exports map, for which Node's own resolution would go on to the global folders", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "pwe-noexports-")));
    try {
      const program = join(root, "program");
      impostor(join(program, "node_modules", "pulumi-webhook-endpoints"), "none");
      const env = usableGlobalCopy(root);
      // Found where the program loaded it from, not in ~/.node_modules or NODE_PATH.
      const found = runText(builtProviderText(REPO), program, 1, env);
      expect(JSON.parse(found.results[0]!)).toMatchObject({ inputs: { webhookName: "n0" } });
      const { results } = runText(builtProviderText(join(root, "gone")), program, 1, env);
      expect(results[0]).toContain(
        `copies found but unusable: ${join(program, "node_modules", "pulumi-webhook-endpoints")} (no ./provider in it):`,
      );
      expect(results[0]).not.toContain("[with a stack]");
      // A global folder inside that copy (NODE_PATH at its own node_modules): what Node would find
      // there sits inside the copy's directory, and still does not count.
      const nested = join(program, "node_modules", "pulumi-webhook-endpoints", "node_modules");
      impostor(join(nested, "pulumi-webhook-endpoints"), true);
      const inside = runText(builtProviderText(join(root, "gone")), program, 1, {
        ...process.env,
        NODE_PATH: nested,
      });
      expect(inside.results[0]).toContain("(no ./provider in it)");
      expect(inside.results[0]).not.toContain("impostor");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("finds the package in pnpm's hoisted store of a directory above the program (a wrapper library's dependency)", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "pwe-pnpm-")));
    try {
      const store = join(root, "node_modules", ".pnpm", "node_modules");
      mkdirSync(store, { recursive: true });
      symlinkSync(REPO, join(store, "pulumi-webhook-endpoints"), "dir");
      const program = join(root, "packages", "program");
      mkdirSync(program, { recursive: true });
      // Not resolvable the usual way from the program, and not where the program loaded it from.
      const { results } = runText(builtProviderText(join(root, "gone")), program, 1);
      expect(JSON.parse(results[0]!)).toMatchObject({ inputs: { webhookName: "n0" } });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("with the package nowhere to be found, names it, where the program runs and how to install it", () => {
    const empty = realpathSync(mkdtempSync(join(tmpdir(), "pwe-empty-")));
    try {
      const { results } = runText(builtProviderText(join(empty, "gone")), empty, 2);
      const expected = `error: pulumi-webhook-endpoints is not installed where the program runs (${empty}): install it there (npm install pulumi-webhook-endpoints, pnpm add pulumi-webhook-endpoints or yarn add pulumi-webhook-endpoints) and run the command again`;
      expect(results).toEqual([expected, expected]);
      // Found where the program loaded it from when the working directory has no node_modules.
      const fallback = runText(builtProviderText(REPO), empty, 1);
      expect(JSON.parse(fallback.results[0]!)).toMatchObject({ inputs: { webhookName: "n0" } });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
