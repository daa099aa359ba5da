// A secret is a taint (README.md, "What happens on each command"): a name or URL the program marked secret
// is stored on the service
// as it is, and `webhooks` lists the service. Run in the stack's project, it keeps what the stack
// holds secret out of what it prints: a value its state or config holds secret now, and the name
// or URL a state of the stack (now, or in a file backend's history) holds secret for an endpoint.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { TOKEN, cliEmulator, fakePulumi } from "./helpers";
import { DYNAMIC_TYPE } from "../../src/cli/stack/deployment";
import { SECRET_SIG, SIG_KEY } from "../../src/core/wire";

const URN = (name: string) => `urn:pulumi:dev::shop::${DYNAMIC_TYPE}::${name}`;
const revealedSecret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) });
const encrypted = { [SIG_KEY]: SECRET_SIG, ciphertext: "v1:not:readable" };

describe("webhooks in a project keeps the stack's secrets out of what it prints", () => {
  let emulator: Emulator;
  const root = mkdtempSync(join(tmpdir(), "webhooks-stack-secrets-"));
  const project = join(root, "project");
  const backend = join(root, "state");
  const held = { url: "https://hooks.example.com/in?key=held-secret-4411" };
  const former = { name: "former-secret-name-7702" };
  const configured = "config-secret-value-1938";

  beforeAll(async () => {
    emulator = await cliEmulator();
    emulator.addRecord({ webhook_name: "plain", webhook_url: "https://example.com/plain" }); // 1
    emulator.addRecord({ webhook_name: "held", webhook_url: held.url }); // 2: the stack holds it, its URL secret
    emulator.addRecord({ webhook_name: former.name, webhook_url: "https://example.com/former" }); // 3: held before, its name secret
    emulator.addRecord({ webhook_name: "other", webhook_url: `https://example.com/x?v=${configured}` }); // 4: shows a config secret
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
    const history = join(backend, ".pulumi", "history", "shop", "dev");
    mkdirSync(history, { recursive: true });
    writeFileSync(
      join(history, "dev-1700000000000000000.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: {
          latest: {
            resources: [
              {
                urn: URN("former"),
                type: DYNAMIC_TYPE,
                id: "3",
                inputs: { webhookName: encrypted },
                outputs: { webhookId: 3, webhookName: encrypted },
              },
            ],
          },
        },
      }),
    );
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(root, { recursive: true, force: true });
  });

  function pulumi() {
    const state = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: URN("held"),
            type: DYNAMIC_TYPE,
            id: "2",
            inputs: { webhookUrl: revealedSecret(held.url) },
            outputs: { webhookId: 2, webhookUrl: revealedSecret(held.url) },
          },
        ],
      },
    };
    return fakePulumi({
      "config --json --show-secrets": () => ({
        stdout: JSON.stringify({
          "webhooks:baseUrl": { value: emulator.url, secret: false },
          "webhooks:accessToken": { value: TOKEN, secret: true },
          "shop:hookKey": { value: configured, secret: true },
        }),
      }),
      "stack export --show-secrets": () => ({ stdout: JSON.stringify(state) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
  }

  async function run(argv: string[]) {
    const sink = memorySink();
    const code = await main(argv, { sink, env: {}, cwd: project, pulumi: pulumi() });
    return { code, out: sink.out, err: sink.err };
  }

  it("list, the table and --json: the fields held secret, or showing a secret value, are [secret] (the marker in --json)", async () => {
    for (const argv of [["list"], ["list", "--json"]]) {
      const { code, out, err } = await run(argv);
      expect({ argv, code }).toEqual({ argv, code: 0 });
      for (const secret of [held.url, former.name, configured, TOKEN])
        expect(out + err, `${argv.join(" ")}: ${secret}`).not.toContain(secret);
      expect(out).toContain(argv.includes("--json") ? '{\n        "secret": true\n      }' : "[secret]");
      // What is not secret still shows.
      expect(out).toContain("https://example.com/plain");
    }
    const json = JSON.parse((await run(["list", "--json"])).out) as {
      endpoints: { webhookId: number; webhookName: unknown; webhookUrl: unknown }[];
    };
    const byId = new Map(json.endpoints.map((e) => [e.webhookId, e]));
    // docs/operator-cli.md: a secret value in --json is the marker {"secret": true}, whole.
    expect(byId.get(2)!.webhookUrl).toEqual({ secret: true });
    expect(byId.get(3)!.webhookName).toEqual({ secret: true });
    expect(byId.get(4)!.webhookUrl).toEqual({ secret: true });
    expect(byId.get(1)!.webhookUrl).toBe("https://example.com/plain");
  });

  it("after destroy (an empty state), the stack's history still keeps what it held secret out of list", async () => {
    const empty = fakePulumi({
      "config --json --show-secrets": () => ({
        stdout: JSON.stringify({
          "webhooks:baseUrl": { value: emulator.url, secret: false },
          "webhooks:accessToken": { value: TOKEN, secret: true },
        }),
      }),
      "stack export --show-secrets": () => ({
        stdout: JSON.stringify({ version: 3, deployment: { resources: [] } }),
      }),
      "stack --show-name": () => ({ stdout: "dev\n" }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const sink = memorySink();
    expect(await main(["list", "--json"], { sink, env: {}, cwd: project, pulumi: empty })).toBe(0);
    expect(sink.out).not.toContain(former.name);
    expect(
      (JSON.parse(sink.out) as { endpoints: { webhookId: number; webhookName: unknown }[] }).endpoints.find(
        (e) => e.webhookId === 3,
      )!.webhookName,
    ).toEqual({ secret: true });
  });

  it("adopt refuses an endpoint whose name or URL the stack holds secret, saying why, and derives no name from it", async () => {
    const { code, out, err } = await run(["adopt", "--id", "2", "--id", "3", "--format", "all"]);
    expect(code).toBe(5);
    expect(out).toBe("");
    expect(err).toMatch(/endpoint 2 gets no .* declaration: its URL is a secret in this stack's state/);
    expect(err).toMatch(/endpoint 3 gets no .* declaration: its name is a secret in this stack's state/);
    for (const secret of [held.url, former.name]) expect(out + err).not.toContain(secret);
    const json = JSON.parse((await run(["adopt", "--id", "3", "--json"])).out) as {
      declarations: { resourceName: string; webhookName: unknown }[];
    };
    expect(json.declarations[0]).toMatchObject({ resourceName: "webhook-3", webhookName: { secret: true } });
  });
});

// Ids are per service: endpoint 1 of one service is not endpoint 1 of another. A name or URL the
// stack holds secret for its endpoint on S1 says nothing about S2's endpoint with the same id
// (`adopt --id 2`, connected to S2, is not refused because the stack holds S1's endpoint 2 with a
// secret URL). They are told apart by what never changes about an endpoint, its creator and
// creation time, not by the spelling of a base URL: one service is reached at several addresses,
// and may move (connected to S1 as `localhost` instead of `127.0.0.1`, the secret URL stays hidden).
describe("what the stack holds secret is judged per endpoint, not per base URL", () => {
  let s1: Emulator;
  let s2: Emulator;
  let ours: { creator_id: number; create_time: number };
  const root = mkdtempSync(join(tmpdir(), "webhooks-stack-secrets-services-"));
  const project = join(root, "project");
  const backend = join(root, "state");
  const secretUrl = "https://n.example/hook?key=held-on-s1-5523";
  const plainUrl = "https://a.example/hook";

  beforeAll(async () => {
    [s1, s2] = await Promise.all([cliEmulator(), cliEmulator({ creator: { id: 2002, name: "team-b" } })]);
    ours = s1.addRecord({ webhook_name: "orders", webhook_url: secretUrl }); // 1 on S1: the stack's, its URL secret
    s2.addRecord({ webhook_name: "payments", webhook_url: plainUrl }); // 1 on S2: another team's, nothing secret
    mkdirSync(project, { recursive: true });
    mkdirSync(backend, { recursive: true });
    writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
  });
  afterAll(async () => {
    await Promise.all([s1?.close(), s2?.close()]);
    rmSync(root, { recursive: true, force: true });
  });

  async function run(argv: string[], facts: boolean) {
    const outputs = {
      webhookId: 1,
      webhookName: "orders",
      webhookUrl: revealedSecret(secretUrl),
      ...(facts
        ? {
            creatorId: ours.creator_id,
            createTime: ours.create_time,
            provenance: { how: "created", service: s1.url, stack: "shop/dev" },
          }
        : {}),
    };
    const state = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: URN("orders"),
            type: DYNAMIC_TYPE,
            id: "1",
            inputs: { webhookUrl: revealedSecret(secretUrl) },
            outputs,
          },
        ],
      },
    };
    const pulumi = fakePulumi({
      "config --json --show-secrets": () => ({
        stdout: JSON.stringify({
          "webhooks:baseUrl": { value: s1.url, secret: false },
          "webhooks:accessToken": { value: TOKEN, secret: true },
        }),
      }),
      "stack export --show-secrets": () => ({ stdout: JSON.stringify(state) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const sink = memorySink();
    const code = await main(argv, { sink, env: {}, cwd: project, pulumi });
    return { code, out: sink.out, err: sink.err };
  }
  const urlOf = (out: string) =>
    (JSON.parse(out) as { endpoints: { webhookId: number; webhookUrl: unknown }[] }).endpoints[0]!.webhookUrl;

  it("connected to S2, S2's endpoint 1 is listed and declared as it is; connected to S1, the stack's stays secret", async () => {
    const onS2 = await run(["list", "--json", "--base-url", s2.url], true);
    expect(onS2.code).toBe(0);
    expect(
      (JSON.parse(onS2.out) as { endpoints: { webhookId: number; webhookUrl: string }[] }).endpoints,
    ).toEqual([expect.objectContaining({ webhookId: 1, webhookUrl: plainUrl })]);
    const adopt = await run(["adopt", "--id", "1", "--format", "import", "--base-url", s2.url], true);
    expect({ code: adopt.code, err: adopt.err }).toEqual({ code: 0, err: "" });
    expect(adopt.out).toContain(" 1");
    const onS1 = await run(["list", "--json"], true);
    expect(onS1.out).not.toContain(secretUrl);
    expect(urlOf(onS1.out)).toEqual({ secret: true });
    const refused = await run(["adopt", "--id", "1", "--format", "import"], true);
    expect(refused.code).toBe(5);
    expect(refused.err).toMatch(/its URL is a secret in this stack's state/);
  });

  it("S1 reached at another spelling of its address (localhost for 127.0.0.1): the stack's endpoint stays secret", async () => {
    const other = s1.url.replace("127.0.0.1", "localhost");
    expect(other).not.toBe(s1.url);
    for (const argv of [["list"], ["list", "--json"], ["adopt", "--id", "1", "--format", "all"]]) {
      const result = await run([...argv, "--base-url", other], true);
      expect(result.out + result.err, argv.join(" ")).not.toContain(secretUrl);
    }
    expect(urlOf((await run(["list", "--json", "--base-url", other], true)).out)).toEqual({ secret: true });
  });

  it("a state that records neither creator nor creation time (an earlier release) cannot tell them apart: kept secret on either service", async () => {
    expect(urlOf((await run(["list", "--json", "--base-url", s2.url], false)).out)).toEqual({ secret: true });
  });
});

// An operator or a job with the service's token but not the stack's passphrase: `--show-secrets`
// fails, yet the plain export still marks which names and URLs are secret.
describe("without the stack's secrets, what its state marks secret stays hidden", () => {
  let emulator: Emulator;
  const root = mkdtempSync(join(tmpdir(), "webhooks-stack-secrets-locked-"));
  const project = join(root, "project");
  const heldUrl = "https://hooks.example.com/in?key=held-secret-4411";

  beforeAll(async () => {
    emulator = await cliEmulator();
    emulator.addRecord({ webhook_name: "held", webhook_url: heldUrl }); // 1
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("list, list --json, adopt in every format and orphans show [secret] or refuse, and say what cannot be recognised", async () => {
    const state = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: URN("held"),
            type: DYNAMIC_TYPE,
            id: "1",
            inputs: { webhookUrl: encrypted },
            outputs: { webhookId: 1, webhookUrl: encrypted },
          },
        ],
      },
    };
    const locked = () => ({
      code: 255,
      stderr: "error: passphrase must be set with PULUMI_CONFIG_PASSPHRASE",
    });
    const pulumi = fakePulumi({
      "config --json --show-secrets": locked,
      "stack export --show-secrets": locked,
      "stack export --stack dev --show-secrets": locked,
      "stack export": () => ({ stdout: JSON.stringify(state) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "s3://bucket" }) }),
    });
    const env = { WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN };
    for (const argv of [
      ["list"],
      ["list", "--json"],
      ["adopt", "--id", "1", "--format", "all"],
      ["adopt", "--id", "1", "--json"],
      ["orphans", "--stack", "dev"],
    ]) {
      const sink = memorySink();
      const code = await main(argv, { sink, env, cwd: project, pulumi });
      expect(sink.out + sink.err, argv.join(" ")).not.toContain("held-secret-4411");
      if (argv[0] === "list") {
        expect(code).toBe(0);
        expect(sink.out).toMatch(
          argv.includes("--json") ? /"webhookUrl": \{\s+"secret": true\s+\}/ : /\[secret\]/,
        );
        expect(sink.err).toMatch(/secrets could not be read/);
      }
      if (argv.includes("all"))
        expect({ code, err: sink.err }).toMatchObject({
          code: 5,
          err: expect.stringMatching(/its URL is a secret in this stack's state/),
        });
    }
  });
});

// A provenance held secret (its service's base URL is a secret) is no list of secret words: "created"
// must not be redacted from every header and sentence.
describe("a secret provenance hides its service, not the words around it", () => {
  it("list shows its CREATED column and the service's address stays hidden", async () => {
    const emulator = await cliEmulator();
    const root = mkdtempSync(join(tmpdir(), "webhooks-stack-secrets-provenance-"));
    try {
      emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/orders" });
      writeFileSync(join(root, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
      const provenance = revealedSecret({ how: "created", service: emulator.url, stack: "shop/dev" });
      const state = {
        version: 3,
        deployment: {
          resources: [
            {
              urn: URN("orders"),
              type: DYNAMIC_TYPE,
              id: "1",
              inputs: {},
              outputs: { webhookId: 1, provenance },
            },
          ],
        },
      };
      const pulumi = fakePulumi({
        "config --json --show-secrets": () => ({
          stdout: JSON.stringify({ "webhooks:accessToken": { value: TOKEN, secret: true } }),
        }),
        "stack export --show-secrets": () => ({ stdout: JSON.stringify(state) }),
        "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "s3://bucket" }) }),
      });
      const sink = memorySink();
      expect(await main(["list", "--base-url", emulator.url], { sink, env: {}, cwd: root, pulumi })).toBe(0);
      expect(sink.out).toContain("CREATED");
      expect(sink.out).not.toContain("[REDACTED]D");
      expect(sink.out + sink.err).not.toContain(emulator.url.replace(/^http:\/\//, ""));
    } finally {
      await emulator.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// The stack's base URL set with --secret, unreachable: the CLI's error names neither it nor its
// host (not even as "list request to <host> failed").
describe("a secret base URL is kept out of the CLI's errors, host included", () => {
  it("list against an unreachable secret base URL fails without naming its host", async () => {
    const root = mkdtempSync(join(tmpdir(), "webhooks-stack-secrets-baseurl-"));
    try {
      writeFileSync(join(root, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
      const secretBase = "http://127.0.0.1:9/SECRETPATH";
      const pulumi = fakePulumi({
        "config --json --show-secrets": () => ({
          stdout: JSON.stringify({
            "webhooks:baseUrl": { value: secretBase, secret: true },
            "webhooks:accessToken": { value: TOKEN, secret: true },
          }),
        }),
        "stack export --show-secrets": () => ({
          stdout: JSON.stringify({ version: 3, deployment: { resources: [] } }),
        }),
        "stack --show-name": () => ({ stdout: "dev\n" }),
        "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "s3://bucket" }) }),
      });
      const sink = memorySink();
      const code = await main(["list"], { sink, env: { WEBHOOKS_MAX_RETRIES: "0" }, cwd: root, pulumi });
      expect(code).not.toBe(0);
      expect(sink.err).toMatch(/\S/);
      for (const form of [secretBase, "127.0.0.1:9", "SECRETPATH"])
        expect(sink.out + sink.err, form).not.toContain(form);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// What the dynamic resource holds secret whatever the program says (`declared`, `createdAs`: the
// name and URL again, for a service that stores another form) is not a secret of the program's:
// plain names and URLs must not be cut apart.
describe("the resource's own secret outputs do not make plain text secret", () => {
  it("list and adopt show an endpoint the program marked nothing secret of", async () => {
    const emulator = await cliEmulator();
    const root = mkdtempSync(join(tmpdir(), "webhooks-stack-secrets-declared-"));
    try {
      const one = emulator.addRecord({
        webhook_name: "orders",
        webhook_url: "https://example.com/hooks/orders/",
      });
      emulator.addRecord({
        webhook_name: "orders-archive",
        webhook_url: "https://example.com/hooks/orders/v2",
      });
      writeFileSync(join(root, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
      const address = { webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" };
      const outputs = {
        webhookId: 1,
        ...address,
        webhookUrl: one.webhook_url,
        creatorId: one.creator_id,
        createTime: one.create_time,
        declared: revealedSecret(address),
        createdAs: revealedSecret(address),
        __secretInputs: revealedSecret([]),
      };
      const state = {
        version: 3,
        deployment: {
          resources: [{ urn: URN("orders"), type: DYNAMIC_TYPE, id: "1", inputs: address, outputs }],
        },
      };
      const pulumi = fakePulumi({
        "config --json --show-secrets": () => ({
          stdout: JSON.stringify({ "webhooks:accessToken": { value: TOKEN, secret: true } }),
        }),
        "stack export --show-secrets": () => ({ stdout: JSON.stringify(state) }),
        "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "s3://bucket" }) }),
      });
      const run = async (argv: string[]) => {
        const sink = memorySink();
        const code = await main([...argv, "--base-url", emulator.url], { sink, env: {}, cwd: root, pulumi });
        return { code, text: sink.out + sink.err };
      };
      const listed = await run(["list", "--json"]);
      expect(listed.text).not.toContain("[REDACTED]");
      expect(listed.text).toContain("orders-archive");
      const adopted = await run(["adopt", "--id", "2", "--format", "all"]);
      expect(adopted.code).toBe(0);
      expect(adopted.text).not.toContain("[REDACTED]");
    } finally {
      await emulator.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// docs/operator-cli.md, "Secrets in what webhooks prints": a stack's endpoint's signing secret is a
// secret of the stack like any other; only the signSecret field `list --show-secrets` asks for shows
// it. Another endpoint whose name or URL holds it (renamed on the console, or echoed by the service)
// must not print it.
describe("webhooks in a project keeps the stack's signing secrets out of every other field", () => {
  let emulator: Emulator;
  const root = mkdtempSync(join(tmpdir(), "webhooks-sign-secrets-"));
  let own: { webhook_id: number; sign_secret: string };

  beforeAll(async () => {
    emulator = await cliEmulator();
    own = emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/orders" }); // 1
    emulator.addRecord({ webhook_name: `copy-${own.sign_secret}`, webhook_url: "https://example.com/a" }); // 2
    emulator.addRecord({
      webhook_name: "url-copy",
      webhook_url: `https://example.com/b?s=${own.sign_secret}`,
    }); // 3
    writeFileSync(join(root, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function run(argv: string[]) {
    const state = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: URN("orders"),
            type: DYNAMIC_TYPE,
            id: "1",
            inputs: { webhookName: "orders", webhookUrl: "https://example.com/orders" },
            outputs: { webhookId: 1, webhookName: "orders", signSecret: revealedSecret(own.sign_secret) },
          },
        ],
      },
    };
    const pulumi = fakePulumi({
      "config --json --show-secrets": () => ({
        stdout: JSON.stringify({
          "webhooks:baseUrl": { value: emulator.url, secret: false },
          "webhooks:accessToken": { value: TOKEN, secret: true },
        }),
      }),
      "stack export --show-secrets": () => ({ stdout: JSON.stringify(state) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "https://api.pulumi.com" }) }),
    });
    const sink = memorySink();
    const code = await main(argv, { sink, env: {}, cwd: root, pulumi });
    return { code, out: sink.out, err: sink.err };
  }

  it("list and list --json: the other endpoints' name and URL show it redacted, or the marker", async () => {
    const table = await run(["list"]);
    expect(table.code).toBe(0);
    expect(table.out + table.err).not.toContain(own.sign_secret);
    expect(table.out).toContain("copy-[REDACTED]");
    const json = await run(["list", "--json"]);
    expect(json.out + json.err).not.toContain(own.sign_secret);
    const byId = new Map(
      (
        JSON.parse(json.out) as {
          endpoints: { webhookId: number; webhookName: unknown; webhookUrl: unknown }[];
        }
      ).endpoints.map((e) => [e.webhookId, e]),
    );
    expect(byId.get(2)!.webhookName).toEqual({ secret: true });
    expect(byId.get(3)!.webhookUrl).toEqual({ secret: true });
    expect(byId.get(1)!.webhookName).toBe("orders");
  });

  it("list --show-secrets still shows the endpoint's own signSecret, and nowhere else", async () => {
    const json = await run(["list", "--json", "--show-secrets"]);
    const byId = new Map(
      (
        JSON.parse(json.out) as {
          endpoints: { webhookId: number; webhookName: unknown; signSecret: unknown }[];
        }
      ).endpoints.map((e) => [e.webhookId, e]),
    );
    expect(byId.get(1)!.signSecret).toBe(own.sign_secret);
    expect(byId.get(2)!.webhookName).toEqual({ secret: true });
    const table = await run(["list", "--show-secrets"]);
    expect(table.out.split(own.sign_secret).length - 1).toBe(1);
  });

  it("adopt refuses to print a declaration holding it", async () => {
    const { code, out, err } = await run(["adopt", "--id", "2"]);
    expect(out + err).not.toContain(own.sign_secret);
    expect(code).not.toBe(0);
  });
});
