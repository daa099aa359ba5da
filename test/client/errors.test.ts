import { afterEach, describe, expect, it } from "vitest";
import {
  WebhookAbortError,
  WebhookApiError,
  WebhookConfigError,
  WebhookError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  WebhookTimeoutError,
  WebhooksClient,
} from "../../src/client";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN, apiRecord, captureError, everythingVisible, rawServer } from "../support/helpers";

const TRACE = "0123456789abcdef0123456789abcdef";
const record = (id: number, name = `n${id}`) => apiRecord({ webhook_id: id, webhook_name: name });

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function serve(status: number, body: string, headers: Record<string, string> = {}) {
  const server = await rawServer((_req, _body, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body);
  });
  closers.push(() => server.close());
  const client = new WebhooksClient({
    baseUrl: server.url,
    accessToken: TOKEN,
    maxRetries: 1,
    retryBaseDelayMs: 1,
    maxRetryAfterMs: 5,
  });
  closers.push(() => client.close());
  return { server, client };
}

describe("responses that are not what the document promises become typed errors", () => {
  const cases: {
    name: string;
    status: number;
    body: string;
    type: new (...args: never[]) => WebhookApiError;
    field?: string;
  }[] = [
    { name: "empty body", status: 200, body: "", type: WebhookInvalidResponseError },
    { name: "HTML", status: 200, body: "<html>oops</html>", type: WebhookInvalidResponseError },
    {
      name: "truncated JSON",
      status: 200,
      body: `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":{"da`,
      type: WebhookInvalidResponseError,
    },
    {
      name: "no code",
      status: 200,
      body: JSON.stringify({ msg: "x", trace_id: TRACE, data: { data: [] } }),
      type: WebhookInvalidResponseError,
      field: "code",
    },
    {
      name: "data is a string",
      status: 200,
      body: JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: TRACE, data: "oops" }),
      type: WebhookInvalidResponseError,
      field: "data",
    },
    {
      name: "records not an array",
      status: 200,
      body: JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: TRACE, data: { data: {} } }),
      type: WebhookInvalidResponseError,
      field: "data.data",
    },
    {
      name: "webhook_id as a string",
      status: 200,
      body: JSON.stringify({
        code: "200",
        msg: "SUCCESS",
        trace_id: TRACE,
        data: { data: [record(1), { ...record(2), webhook_id: "2" }] },
      }),
      type: WebhookInvalidResponseError,
      field: "data.data[1].webhook_id",
    },
    {
      name: "missing sign_secret",
      status: 200,
      body: JSON.stringify({
        code: "200",
        msg: "SUCCESS",
        trace_id: TRACE,
        data: { data: [{ ...record(1), sign_secret: undefined }] },
      }),
      type: WebhookInvalidResponseError,
      field: "data.data[0].sign_secret",
    },
    {
      name: "non-200 code in HTTP 200",
      status: 200,
      body: JSON.stringify({ code: "40002", msg: "limit out of range", trace_id: TRACE, data: null }),
      type: WebhookRequestRefusedError,
    },
    {
      name: "5xx code in HTTP 200",
      status: 200,
      body: JSON.stringify({ code: "50001", msg: "db down", trace_id: TRACE }),
      type: WebhookServerError,
    },
    { name: "HTTP 502 with HTML", status: 502, body: "<html>bad gateway</html>", type: WebhookServerError },
    {
      name: "HTTP 429 with Retry-After",
      status: 429,
      body: JSON.stringify({ code: "429", msg: "slow down", trace_id: TRACE }),
      type: WebhookRateLimitError,
    },
    { name: "HTTP 404", status: 404, body: "not found", type: WebhookRequestRefusedError },
    { name: "HTTP 302 redirect", status: 302, body: "", type: WebhookRequestRefusedError },
  ];

  it.each(cases)("$name", async ({ status, body, type, field }) => {
    const { client } = await serve(status, body, status === 429 ? { "retry-after": "0" } : {});
    const error = await captureError(client.list({ webhookName: "n1" }));
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(WebhookApiError);
    expect(error).toBeInstanceOf(WebhookError);
    const apiError = error as WebhookApiError;
    expect(apiError.operation).toBe("list");
    expect(apiError.status).toBe(status);
    if (field) expect((apiError as WebhookInvalidResponseError).field).toBe(field);
    if (body.includes(TRACE)) expect(apiError.traceId).toBe(TRACE);
    // Values from the body never reach the message (a record could hold a secret).
    expect(apiError.message).not.toContain("whsec_");
    expect(everythingVisible(error)).not.toContain(TOKEN);
  });

  it("keeps the service's message verbatim but never a token echoed inside it", async () => {
    const { client } = await serve(
      400,
      JSON.stringify({ code: "40001", msg: `bad header ${TOKEN}`, trace_id: TRACE }),
    );
    const error = (await captureError(client.list())) as WebhookRequestRefusedError;
    expect(error.msg).toBe("bad header [REDACTED]");
    expect(error.serviceCode).toBe("40001");
    expect(everythingVisible(error)).not.toContain(TOKEN);
  });

  it("does not follow a redirect, so the token never reaches another host", async () => {
    const elsewhere = await rawServer((_req, _body, res) => res.end("{}"));
    closers.push(() => elsewhere.close());
    const { client, server } = await serve(307, "", { location: `${elsewhere.url}/open-api/v1/webhooks` });
    const error = await captureError(client.list());
    expect(error).toBeInstanceOf(WebhookRequestRefusedError);
    expect((error as Error).message).toMatch(/redirect/);
    expect(elsewhere.requests).toHaveLength(0);
    expect(server.requests[0]!.headers.authorization).toBe(TOKEN);
  });
});

describe("list retries and paging safety", () => {
  it("honours Retry-After up to the cap, and gives up after maxRetries", async () => {
    let calls = 0;
    const server = await rawServer((_req, _body, res) => {
      calls++;
      res.writeHead(429, { "retry-after": "30", "content-type": "application/json" });
      res.end(JSON.stringify({ code: "429", msg: "slow down", trace_id: TRACE }));
    });
    closers.push(() => server.close());
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      maxRetries: 2,
      retryBaseDelayMs: 1,
      maxRetryAfterMs: 150,
    });
    closers.push(() => client.close());
    const started = Date.now();
    const error = await captureError(client.list());
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(WebhookRateLimitError);
    expect((error as WebhookRateLimitError).retryAfterMs).toBe(30_000);
    expect(calls).toBe(3);
    // Two waits, each capped at 150 ms rather than the 30 s asked for.
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5000);
  });

  it("stops on a repeated cursor instead of looping, and says the listing may be incomplete", async () => {
    let id = 0;
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          code: "200",
          msg: "SUCCESS",
          trace_id: TRACE,
          data: { data: [record(++id)], cursor: "same" },
        }),
      );
    });
    closers.push(() => server.close());
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN });
    closers.push(() => client.close());
    const { records, end } = await client.scan({ limit: 1 });
    expect(records.map((r) => r.webhookId)).toEqual([1, 2]);
    expect(end).toEqual({ complete: false, reason: expect.stringMatching(/cursor it had already returned/) });
    expect(server.requests).toHaveLength(2);
  });

  it("takes an empty cursor field as the end, even after a full page", async () => {
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          code: "200",
          msg: "SUCCESS",
          trace_id: TRACE,
          data: { data: [record(1), record(2)], cursor: "" },
        }),
      );
    });
    closers.push(() => server.close());
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN });
    closers.push(() => client.close());
    const { records, pages } = await client.scan({ limit: 2 });
    expect(records.map((r) => r.webhookId)).toEqual([1, 2]);
    expect(pages).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it("caps the number of pages", async () => {
    let id = 0;
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      id++;
      res.end(
        JSON.stringify({
          code: "200",
          msg: "SUCCESS",
          trace_id: TRACE,
          data: { data: [record(id)], next_cursor: `c${id}` },
        }),
      );
    });
    closers.push(() => server.close());
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxPages: 7 });
    closers.push(() => client.close());
    const error = await captureError(client.scan({ limit: 1 }));
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect(server.requests).toHaveLength(7);
  });

  it("sends every documented list field, ascending in string form", async () => {
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: TRACE, data: { data: [] } }));
    });
    closers.push(() => server.close());
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN });
    closers.push(() => client.close());
    await client.list({ webhookName: "a", ascending: false });
    await client.list();
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      cursor: "",
      limit: 100,
      webhook_name: "a",
      webhook_url: "",
      ascending: "false",
    });
    expect(JSON.parse(server.requests[1]!.body)).toEqual({
      cursor: "",
      limit: 100,
      webhook_name: "",
      webhook_url: "",
      ascending: "true",
    });
    expect(server.requests[0]!.headers["content-type"]).toBe("application/json");
    expect(server.requests[0]!.headers.authorization).toBe(TOKEN);
  });
});

describe("timeouts, cancellation, coalescing and configuration", () => {
  let emulator: Emulator;
  afterEach(async () => {
    await emulator?.close();
  });

  it("times out per call and per client, and lets the caller cancel", async () => {
    emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 400 });
    const client = new WebhooksClient({
      baseUrl: emulator.url,
      accessToken: TOKEN,
      timeoutMs: 100,
      maxRetries: 0,
    });
    closers.push(() => client.close());
    expect(await captureError(client.list())).toBeInstanceOf(WebhookTimeoutError);
    await expect(client.list({}, { timeoutMs: 2000 })).resolves.toMatchObject({ records: [] });
    const controller = new AbortController();
    const pending = client.list({}, { signal: controller.signal, timeoutMs: 2000 });
    controller.abort();
    expect(await captureError(pending)).toBeInstanceOf(WebhookAbortError);
  });

  it("coalesces identical list calls in flight at the same moment", async () => {
    emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 50 });
    const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN });
    closers.push(() => client.close());
    await Promise.all(Array.from({ length: 20 }, () => client.list({ webhookName: "same" })));
    expect(emulator.counters().list).toBe(1);
    await Promise.all([client.list({ webhookName: "a" }), client.list({ webhookName: "b" })]);
    expect(emulator.counters().list).toBe(3);
  });

  it("refuses bad configuration with errors that say what to do", () => {
    const make =
      (baseUrl: string, accessToken = TOKEN, allowInsecureHttp = false) =>
      () =>
        new WebhooksClient({ baseUrl, accessToken, allowInsecureHttp });
    expect(make("http://api.example.com")).toThrow(/plain http on a non-loopback host/);
    expect(make("http://api.example.com", TOKEN, true)).not.toThrow();
    expect(make("ftp://api.example.com")).toThrow(WebhookConfigError);
    expect(make("https://user:pw@api.example.com")).toThrow(/credentials/);
    expect(make("not a url")).toThrow(/absolute URL/);
    expect(make("https://api.example.com", " ")).toThrow(/accessToken is empty/);
    expect(make("https://api.example.com", "abc\r\nX-Evil: 1")).toThrow(/line break/);
    expect(make("http://127.0.0.1:1")).not.toThrow();
    expect(make("http://localhost:1")).not.toThrow();
  });

  it("a configuration error is a local mistake of its own kind, not an error of the service", () => {
    const brokenToken = `${TOKEN}\n`;
    let error: unknown;
    try {
      new WebhooksClient({ baseUrl: "https://api.example.com", accessToken: brokenToken });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WebhookConfigError);
    expect(error).toBeInstanceOf(WebhookError);
    // A `catch` that handles the service's failures does not take a misconfiguration for one.
    expect(error).not.toBeInstanceOf(WebhookApiError);
    const configError = error as WebhookConfigError;
    expect(configError.name).toBe("WebhookConfigError");
    expect(configError.code).toBe("WEBHOOK_CONFIG_INVALID");
    expect(configError.message).toBe(
      "accessToken contains a line break or NUL character: copy the token again without them",
    );
    expect(Object.keys(configError)).not.toContain("status");
    expect(everythingVisible(configError)).not.toContain(TOKEN);
  });
});
