// A secret is a taint on both faces (README, "What happens on each command"; docs/reliability.md,
// "What this cannot prevent"): the engine shows the provider one resource at a time, so a secret of
// one resource that the service shows in another endpoint's name, URL or error must still be kept
// out of what the provider prints and records once the provider has been shown it in the run; and
// an endpoint's own signing secret is kept out of its errors on the dynamic face, whose taint holds
// only the program's secret inputs.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";
import { escapedSplits, readsSecret } from "../support/as-read";
import { TOKEN, rawServer } from "../support/helpers";

const STACK = "shop/dev";
const SECRET_NAME = "sekrit-name-alpha";

/**
 * Provider processes (one ProviderCore each) on one emulated service per test, with the notices
 * they print; the service and every process are closed after each test.
 */
function providerProcesses(options: EmulatorOptions = {}) {
  let emulator: Emulator | undefined;
  const cores: ProviderCore[] = [];
  const notices: string[] = [];
  beforeEach(async () => {
    emulator = await startEmulator({ accessToken: TOKEN, ...options });
    notices.length = 0;
  });
  afterEach(async () => {
    await Promise.all(cores.splice(0).map((made) => made.close()));
    await emulator?.close();
  });
  const service = (): Emulator => emulator!;
  const core = (face: "dynamic" | "native") => {
    const made = new ProviderCore({
      face,
      notify: (message) => notices.push(message),
      env: { WEBHOOKS_BASE_URL: service().url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
    });
    cores.push(made);
    return made;
  };
  return { core, notices, service };
}

describe("secrets one resource showed the provider stay out of another resource's reads and messages", () => {
  const { core, notices, service } = providerProcesses();

  for (const face of ["dynamic", "native"] as const) {
    it(`${face}: refresh refuses an endpoint renamed to hold another resource's secret name or signing secret, and prints neither`, async () => {
      const secretName = { names: ["webhookName"], values: [SECRET_NAME] };
      const a = await core(face).create(
        { webhookName: SECRET_NAME, webhookUrl: "https://example.com/a" },
        secretName,
        STACK,
      );
      const b = await core(face).create(
        { webhookName: "b", webhookUrl: "https://example.com/b" },
        NO_TAINT,
        STACK,
      );
      const c = await core(face).create(
        { webhookName: "c", webhookUrl: "https://example.com/c" },
        NO_TAINT,
        STACK,
      );
      const signSecret = a.state.signSecret;
      service().updateRecord(Number(b.id), { webhook_name: `copy-${SECRET_NAME.toUpperCase()}` });
      service().updateRecord(Number(c.id), { webhook_name: `c-${signSecret}` });

      // One provider process for the refresh: a's read comes first and shows it a's secrets.
      const refresh = core(face);
      await refresh.read(a.id, a.state, secretName, STACK);
      for (const [resource, state] of [
        ["b", b.state],
        ["c", c.state],
      ] as const) {
        const outcome = await refresh.read(state.webhookId.toString(), state, NO_TAINT, STACK).then(
          () => undefined,
          (error: unknown) => error as Error,
        );
        expect(outcome, resource).toBeInstanceOf(Error);
        expect(outcome!.message).toContain("cannot be refreshed");
        expect(outcome!.message).toContain("a value this stack holds secret");
        expect(outcome!.message.toLowerCase()).not.toContain(SECRET_NAME);
        expect(outcome!.message).not.toContain(signSecret);
      }
      // A diff of b in the same process: whatever it says of the rename, neither secret.
      await refresh
        .diff(b.id, b.state, { webhookName: "b", webhookUrl: "https://example.com/b" }, NO_TAINT, STACK)
        .catch(() => undefined);
      for (const notice of notices) {
        expect(notice.toLowerCase()).not.toContain(SECRET_NAME);
        expect(notice).not.toContain(signSecret);
      }
    });
  }
});

describe("a secret another resource showed, echoed in escapes a reader decodes, is still that secret", () => {
  const { core, notices, service } = providerProcesses({ maxNameLength: 1000 });

  for (const face of ["dynamic", "native"] as const) {
    it(`${face}: refresh refuses an endpoint whose name holds the secret name or signing secret split by an escaped hidden character`, async () => {
      const secretName = { names: ["webhookName"], values: [SECRET_NAME] };
      const a = await core(face).create(
        { webhookName: SECRET_NAME, webhookUrl: "https://example.com/a" },
        secretName,
        STACK,
      );
      const echoes = [
        ...escapedSplits(SECRET_NAME).map(([, spelled]) => spelled),
        ...escapedSplits(a.state.signSecret).map(([, spelled]) => spelled),
      ];
      const others: WebhookEndpointOutputs[] = [];
      for (const [i, echo] of echoes.entries()) {
        const made = await core(face).create(
          { webhookName: `other-${i}`, webhookUrl: `https://example.com/o/${i}` },
          NO_TAINT,
          STACK,
        );
        service().updateRecord(Number(made.id), { webhook_name: `copy-${echo}` });
        others.push(made.state);
      }
      const refresh = core(face);
      await refresh.read(a.id, a.state, secretName, STACK);
      for (const [i, state] of others.entries()) {
        const outcome = await refresh.read(String(state.webhookId), state, NO_TAINT, STACK).then(
          () => undefined,
          (error: unknown) => error as Error,
        );
        expect(outcome, echoes[i]).toBeInstanceOf(Error);
        expect(outcome!.message).toContain("a value this stack holds secret");
        for (const secret of [SECRET_NAME, a.state.signSecret])
          expect(readsSecret(outcome!.message, secret)).toBe(false);
      }
      for (const notice of notices)
        for (const secret of [SECRET_NAME, a.state.signSecret])
          expect(readsSecret(notice, secret)).toBe(false);
    });
  }
});

describe("an endpoint's own signing secret, echoed in a failing service's answer, is kept out of its errors", () => {
  for (const face of ["dynamic", "native"] as const) {
    it(`${face}: a refresh and a diff whose listing fails quoting the endpoint's signing secret do not print it`, async () => {
      const signSecret = "whsec_own_7f3a9c1e5b2d4f6a8c0e";
      const server = await rawServer((_req, _body, res) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "500", msg: `db error near key ${signSecret}`, trace_id: "t" }));
      });
      const provider = new ProviderCore({
        face,
        notify: () => {},
        env: { WEBHOOKS_BASE_URL: server.url, WEBHOOKS_ACCESS_TOKEN: TOKEN, WEBHOOKS_MAX_RETRIES: "0" },
      });
      try {
        const state = {
          webhookId: 7,
          webhookName: "orders",
          webhookUrl: "https://example.com/orders",
          signSecret,
          creatorId: 1,
          creatorName: "c",
          createTime: 1,
          operatorId: 1,
          operatorName: "c",
          operateTime: 1,
        } as unknown as WebhookEndpointOutputs;
        const read = await provider.read("7", state, NO_TAINT, STACK).then(
          () => "no error",
          (error: unknown) => (error as Error).message,
        );
        const diff = await provider
          .diff(
            "7",
            state,
            { webhookName: "orders", webhookUrl: "https://example.com/orders" },
            NO_TAINT,
            STACK,
          )
          .then(
            () => "no error",
            (error: unknown) => (error as Error).message,
          );
        for (const message of [read, diff]) expect(message).not.toContain(signSecret);
        expect(read).toContain("db error near key");
      } finally {
        await provider.close();
        await server.close();
      }
    });
  }
});

describe("a remembered secret in a service's answer that leaves a read undecided", () => {
  // The service lists another endpoint under B's name and no paging position, then fails the probe
  // for what follows with a message that quotes A's secret name: the read cannot tell whether B
  // exists, and says so in a warning that quotes the service.
  const SECRET = "sekrit-fjord-alpha";
  const echoes = [SECRET, "&#37;73ekrit-fjord-alpha", "sekrit-&fjlig;ord-alpha"];
  for (const face of ["dynamic", "native"] as const)
    it(`${face}: the warning withholds it, as it is and written in escapes of escapes or a ligature`, async () => {
      const records: Record<string, unknown>[] = [];
      let echo: string | undefined;
      const envelope = (code: string, msg: string, data?: unknown) =>
        JSON.stringify({
          code,
          msg,
          trace_id: "0123456789abcdef0123456789abcdef",
          ...(data ? { data } : {}),
        });
      const server = await rawServer((req, body, res) => {
        const query = JSON.parse(body || "{}") as Record<string, unknown>;
        res.setHeader("content-type", "application/json");
        if (req.url!.endsWith("/create")) {
          const made = {
            webhook_id: records.length + 1,
            webhook_name: query.webhook_name,
            webhook_url: query.webhook_url,
            sign_secret: `whsec_${records.length + 1}_Qm3vT8pLx2`,
            creator_id: 7,
            creator_name: "alice",
            create_time: 1,
            operator_id: 7,
            operator_name: "alice",
            operate_time: 1,
          };
          records.push(made);
          return void res.end(envelope("200", "Success", made));
        }
        if (echo !== undefined) {
          if (query.cursor) {
            res.statusCode = 500;
            return void res.end(envelope("500", `listing unavailable; last change by job on ${echo}`));
          }
          return void res.end(envelope("200", "SUCCESS", { data: [{ ...records[1], webhook_id: 99 }] }));
        }
        const listed = records.filter(
          (r) => query.webhook_name === undefined || r.webhook_name === query.webhook_name,
        );
        res.end(envelope("200", "SUCCESS", { data: listed, cursor: "" }));
      });
      const printed: string[] = [];
      const env = {
        WEBHOOKS_BASE_URL: server.url,
        WEBHOOKS_ACCESS_TOKEN: TOKEN,
        WEBHOOKS_MAX_RETRIES: "0",
      };
      const make = () =>
        face === "native"
          ? new ProviderCore({
              face,
              env,
              notify: (m) => printed.push(m),
              warn: (m) => printed.push(`warning: ${m}`),
            })
          : new ProviderCore({ face, env, notify: (m) => printed.push(m) });
      const made: ProviderCore[] = [];
      try {
        const taint = { names: ["webhookName"], values: [SECRET] };
        const setup = make();
        made.push(setup);
        const a = await setup.create(
          { webhookName: SECRET, webhookUrl: "https://example.com/a" },
          taint,
          STACK,
        );
        const b = await setup.create(
          { webhookName: "b", webhookUrl: "https://example.com/b" },
          NO_TAINT,
          STACK,
        );
        for (const spelled of echoes) {
          printed.length = 0;
          const core = make();
          made.push(core);
          await core.read(a.id, a.state, taint, STACK);
          echo = spelled;
          const outcome = await core.read(b.id, b.state, NO_TAINT, STACK).catch((e: unknown) => e);
          if (outcome instanceof Error) expect(readsSecret(outcome.message, SECRET)).toBe(false);
          echo = undefined;
          const warnings = printed.filter((line) => line.startsWith("warning:"));
          expect(warnings.length, spelled).toBeGreaterThan(0);
          for (const line of printed) expect(readsSecret(line, SECRET), line).toBe(false);
        }
      } finally {
        await Promise.all(made.map((core) => core.close()));
        await server.close();
      }
    });
});

describe("a drift or refresh the service causes shows no secret another resource, or the resource itself, holds", () => {
  const { core, service } = providerProcesses();

  for (const face of ["dynamic", "native"] as const) {
    it(`${face}: a diff's drift reason holds neither another resource's secret name nor its signing secret`, async () => {
      const secretName = { names: ["webhookName"], values: [SECRET_NAME] };
      const made = core(face);
      const a = await made.create(
        { webhookName: SECRET_NAME, webhookUrl: "https://example.com/a" },
        secretName,
        STACK,
      );
      const c = await made.create({ webhookName: "c", webhookUrl: "https://example.com/c" }, NO_TAINT, STACK);
      const d = await made.create({ webhookName: "d", webhookUrl: "https://example.com/d" }, NO_TAINT, STACK);
      const signSecret = a.state.signSecret;
      service().updateRecord(Number(c.id), { webhook_url: `https://example.com/c?k=${signSecret}` });
      service().updateRecord(Number(d.id), {
        webhook_url: `https://example.com/${SECRET_NAME.toUpperCase()}`,
      });

      // A preview in one provider process: a's diff comes first and shows it a's secrets.
      const preview = core(face);
      await preview.diff(
        a.id,
        a.state,
        { webhookName: SECRET_NAME, webhookUrl: "https://example.com/a" },
        secretName,
        STACK,
      );
      for (const [resource, held] of [
        ["c", c],
        ["d", d],
      ] as const) {
        const declared = { webhookName: resource, webhookUrl: `https://example.com/${resource}` };
        const outcome = await preview.diff(held.id, held.state, declared, NO_TAINT, STACK);
        expect(outcome.replaces, resource).toEqual(["webhookUrl"]);
        expect(outcome.drift).toContain("[REDACTED]");
        expect(outcome.drift!.toLowerCase()).not.toContain(SECRET_NAME);
        expect(outcome.drift).not.toContain(signSecret);
      }
    });

    it(`${face}: refresh refuses a name the service changed to hold the resource's own secret URL`, async () => {
      const url = "https://hooks.example.com/T0K3N-13-ab12cd34";
      const secretUrl = { names: ["webhookUrl"], values: [url] };
      const u = await core(face).create({ webhookName: "u", webhookUrl: url }, secretUrl, STACK);
      // Its URL is secret in state, as its input is; its name is not, and must not come to hold the URL.
      service().updateRecord(Number(u.id), { webhook_name: `u ${url}` });
      const error = await core(face)
        .read(u.id, u.state, secretUrl, STACK)
        .then(
          () => undefined,
          (e: unknown) => e as Error,
        );
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toContain("cannot be refreshed");
      expect(error!.message).not.toContain("T0K3N-13");
      // Its own field may hold its own secret: a URL changed on the service is still read.
      service().updateRecord(Number(u.id), { webhook_name: "u", webhook_url: `${url}/v2` });
      const read = await core(face).read(u.id, u.state, secretUrl, STACK);
      expect(read?.state.webhookUrl).toBe(`${url}/v2`);
    });

    it(`${face}: refresh reads a change that brings no new secret into a plain field`, async () => {
      // Name and URL both secret: the URL is secret in state whatever it holds.
      const name = "orders-hook-prod-7q";
      const both = { names: ["webhookName", "webhookUrl"], values: [name, `https://h.example/${name}`] };
      const e = await core(face).create(
        { webhookName: name, webhookUrl: `https://h.example/${name}` },
        both,
        STACK,
      );
      service().updateRecord(Number(e.id), { webhook_url: `https://h.example/${name}/v2` });
      expect((await core(face).read(e.id, e.state, both, STACK))?.state.webhookUrl).toBe(
        `https://h.example/${name}/v2`,
      );
      // Even with another of its secrets (a secret base URL's host) in it, new since the change.
      const withBase = {
        names: [...both.names, "webhooks:baseUrl"],
        values: [...both.values, "gw-private-3c.example"],
      };
      const moved = `https://h.example/${name}/v3?via=gw-private-3c.example`;
      service().updateRecord(Number(e.id), { webhook_url: moved });
      expect((await core(face).read(e.id, e.state, withBase, STACK))?.state.webhookUrl).toBe(moved);
      // A secret name inside the plain URL the program declared: the URL held it before the change.
      const secretName = { names: ["webhookName"], values: ["payments-hush-9k"] };
      const a = await core(face).create(
        { webhookName: "payments-hush-9k", webhookUrl: "https://h.example/payments-hush-9k" },
        secretName,
        STACK,
      );
      service().updateRecord(Number(a.id), { webhook_url: "https://h.example/payments-hush-9k/v2" });
      const read = await core(face).read(a.id, a.state, secretName, STACK);
      expect(read?.state.webhookUrl).toBe("https://h.example/payments-hush-9k/v2");
    });
  }
});
