import { subscribe, unsubscribe } from "node:diagnostics_channel";
// The client's own connections (Node's http and https modules, one keep-alive agent): what a failed
// attempt says of whether the request may have reached the service, and what close() waits for. Real
// sockets on loopback throughout.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { join } from "node:path";
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import { Agent } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  WebhookAbortError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhookInvalidResponseError,
  WebhookTimeoutError,
  WebhooksClient,
  type WebhooksClientOptions,
} from "../../src/client";
import { startEmulator } from "../../src/emulator";
import { TOKEN, apiRecord, captureError, everythingVisible, rawServer, waitUntil } from "../support/helpers";

const HOOK = { webhookName: "orders", webhookUrl: "https://example.com/orders" };
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A TCP server that accepts connections and never answers (nor completes a TLS handshake); resolves to its port. */
async function silentServer(onData?: () => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    if (onData) socket.once("data", onData);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

describe("the client's own connections", () => {
  it("a deadline before the TLS handshake completed means the request was never sent", async () => {
    // Nothing is written to a TLS connection before it is secured: the service cannot have the
    // request, so a create may be sent again (a timeout after the connection was open may not).
    const port = await silentServer();
    const client = new WebhooksClient({
      baseUrl: `https://127.0.0.1:${port}`,
      accessToken: TOKEN,
      timeoutMs: 300,
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    await client.close();
    expect(error).toBeInstanceOf(WebhookTimeoutError);
    expect((error as WebhookTimeoutError).requestSent).toBe(false);
  });

  it("a deadline once the request went out on an open connection may have been processed", async () => {
    let received = false;
    const port = await silentServer(() => (received = true));
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${port}`,
      accessToken: TOKEN,
      // Long enough that a busy machine has connected and sent before the deadline: the server
      // never answers, so the test waits this long whatever the machine.
      timeoutMs: 2000,
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    await client.close();
    expect(received).toBe(true);
    expect(error).toBeInstanceOf(WebhookTimeoutError);
    expect((error as WebhookTimeoutError).requestSent).toBe(true);
  });

  it("close() lets the requests in flight finish, then refuses new ones as never sent", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 200 });
    try {
      const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, maxRetries: 0 });
      const listing = client.list({});
      while (emulator.requests().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await client.close();
      await expect(listing).resolves.toMatchObject({ records: [] });
      const after = await captureError(client.list({}));
      expect(after).toBeInstanceOf(WebhookConnectionError);
      expect((after as WebhookConnectionError).requestSent).toBe(false);
    } finally {
      await emulator.close();
    }
  });
});

describe("the client's own connections, dropped once the request went out", () => {
  it("on a connection kept alive from an earlier call: may have been processed", async () => {
    // The list opens the connection; the create goes out on it, and the service drops it.
    const server = await rawServer((req, _body, res) => {
      if (req.url?.endsWith("/create")) return void req.socket.destroy();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: "", data: { data: [] } }));
    });
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      maxRetries: 0,
      createSettleMs: 0,
    });
    try {
      await client.list({});
      const error = await captureError(client.create(HOOK));
      expect(server.requests.filter((r) => r.path.endsWith("/create"))).toHaveLength(1);
      // Sent, so never sent again: the settle finds nothing, and the service may still be making it.
      expect(error).toBeInstanceOf(WebhookCreateUncertainError);
      const cause = (error as Error).cause;
      expect(cause).toBeInstanceOf(WebhookConnectionError);
      expect((cause as WebhookConnectionError).requestSent).toBe(true);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("on a new TLS connection, once secured: may have been processed", async () => {
    // A certificate made for this test, trusted by this test process only.
    const dir = mkdtempSync(join(tmpdir(), "pwe-tls-"));
    const trusted = getCACertificates("default");
    try {
      execFileSync(
        "openssl",
        [
          ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"],
          ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1"],
          ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        ],
        { stdio: "ignore" },
      );
      const cert = readFileSync(join(dir, "cert.pem"), "utf8");
      setDefaultCACertificates([...trusted, cert]);
      let created = 0;
      const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req) => {
        req.resume();
        req.on("end", () => {
          created++;
          req.socket.destroy();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as { port: number };
      const client = new WebhooksClient({
        baseUrl: `https://127.0.0.1:${port}`,
        accessToken: TOKEN,
        maxRetries: 0,
      });
      try {
        const error = await captureError(client.list({}));
        expect(created).toBe(1);
        expect(error).toBeInstanceOf(WebhookConnectionError);
        expect((error as WebhookConnectionError).requestSent).toBe(true);
      } finally {
        await client.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      setDefaultCACertificates(trusted);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a call the caller cancels once its request went out", () => {
  // docs/client.md, Errors: a WebhookAbortError; "a create cancelled after sending may still have
  // created the endpoint", which only a create's message may say.
  it("a create's error says the endpoint may have been created; a list's does not", async () => {
    const held: (() => void)[] = [];
    const server = await rawServer((req, _body, res) => {
      if (req.url?.endsWith("/create") || held.length === 0) {
        held.push(() => res.destroy());
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: "", data: { data: [] } }));
    });
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const cancelList = new AbortController();
      const list = captureError(client.list({}, { signal: cancelList.signal }));
      await waitUntil("the list request arrives", () => held.length === 1);
      cancelList.abort();
      const listError = await list;
      expect(listError).toBeInstanceOf(WebhookAbortError);
      expect((listError as Error).message).toMatch(/list request .* was cancelled by the caller/);
      expect((listError as Error).message).not.toMatch(/may have been created/);

      const cancelCreate = new AbortController();
      const create = captureError(client.create(HOOK, { signal: cancelCreate.signal }));
      await waitUntil("the create request arrives", () => held.length === 2);
      cancelCreate.abort();
      const createError = await create;
      expect(createError).toBeInstanceOf(WebhookAbortError);
      expect((createError as Error).message).toMatch(/create request .* was cancelled by the caller/);
      expect((createError as Error).message).toMatch(/the endpoint may have been created/);
      expect((createError as WebhookAbortError).operation).toBe("create");
    } finally {
      for (const release of held) release();
      await client.close();
      await server.close();
    }
  });
});

// The same question through a caller's dispatcher (docs/client.md, Options: `dispatcher`), which
// connects on its own: only its error can say the connection never carried the request.
describe("a caller's undici dispatcher", () => {
  const agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
  });
  const agent = (options?: ConstructorParameters<typeof Agent>[0]) => {
    const made = new Agent(options);
    agents.push(made);
    return made;
  };

  it("a refused connection never carried the create: a connection error saying so, not a create left uncertain", async () => {
    // docs/client.md, Retries: "nothing: the connection never carried the request" is "not
    // processed", the one case sent again at once; an ambiguous one would be settled by listing,
    // which fails here too and leaves a WebhookCreateUncertainError.
    const closed = await rawServer(() => undefined);
    await closed.close();
    const client = new WebhooksClient({
      baseUrl: closed.url,
      accessToken: TOKEN,
      dispatcher: agent(),
      retryBaseDelayMs: 1,
      maxRetries: 1,
    });
    const error = await captureError(
      client.create({ webhookName: "orders", webhookUrl: "https://example.com/orders" }, { maxRetries: 1 }),
    );
    await client.close();
    expect(error).toBeInstanceOf(WebhookConnectionError);
    expect((error as WebhookConnectionError).requestSent).toBe(false);
  });

  it("a connection dropped once the request went out may have been processed", async () => {
    let received = false;
    const port = await silentServer(() => {
      received = true;
      sockets.at(-1)?.destroy();
    });
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${port}`,
      accessToken: TOKEN,
      dispatcher: agent(),
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    await client.close();
    expect(received).toBe(true);
    expect(error).toBeInstanceOf(WebhookConnectionError);
    expect((error as WebhookConnectionError).requestSent).toBe(true);
  });

  it("one that never answers and ignores the signal it is given still ends at the deadline, or at the caller's cancel", async () => {
    // docs/client.md, Options: timeoutMs bounds every request, through a dispatcher too.
    const deaf = { request: () => new Promise<never>(() => undefined) } as unknown as Agent;
    const client = new WebhooksClient({
      baseUrl: "http://127.0.0.1:9",
      accessToken: TOKEN,
      dispatcher: deaf,
      timeoutMs: 200,
      maxRetries: 0,
    });
    const timedOut = await captureError(client.list({}));
    expect(timedOut).toBeInstanceOf(WebhookTimeoutError);
    expect(timedOut).toMatchObject({ operation: "list" });
    const cancel = new AbortController();
    const pending = captureError(client.list({}, { signal: cancel.signal, timeoutMs: 600_000 }));
    cancel.abort();
    expect(await pending).toBeInstanceOf(WebhookAbortError);
    await client.close();
  });

  it("an error whose code holds the token shows neither the token nor the code", async () => {
    // A dispatcher of the caller's may put anything in an error's code, which a message shows.
    const upper = TOKEN.toUpperCase().replace(/[^A-Z0-9]/g, "_");
    for (const code of [`E${TOKEN}`, `E_${upper}`]) {
      const leaky = {
        request: () => Promise.reject(Object.assign(new Error("refused"), { code })),
      } as unknown as Agent;
      const client = new WebhooksClient({
        baseUrl: "http://127.0.0.1:9",
        accessToken: code.startsWith("E_") ? upper : TOKEN,
        dispatcher: leaky,
        maxRetries: 0,
      });
      const error = await captureError(client.list({}));
      expect(error, code).toBeInstanceOf(WebhookConnectionError);
      expect(everythingVisible(error), code).not.toContain(code.startsWith("E_") ? upper : TOKEN);
      await client.close();
    }
    // Nor a code that is not one (a line of its own in a log).
    const forged = {
      request: () => Promise.reject(Object.assign(new Error("refused"), { code: "E\nFORGED" })),
    };
    const client = new WebhooksClient({
      baseUrl: "http://127.0.0.1:9",
      accessToken: TOKEN,
      dispatcher: forged as unknown as Agent,
      maxRetries: 0,
    });
    expect(((await captureError(client.list({}))) as Error).message).not.toContain("FORGED");
    await client.close();
  });

  it("its connect timeout before the TLS handshake completed means the request was never sent", async () => {
    const port = await silentServer();
    const client = new WebhooksClient({
      baseUrl: `https://127.0.0.1:${port}`,
      accessToken: TOKEN,
      dispatcher: agent({ connect: { timeout: 200 } }),
      timeoutMs: 30_000,
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    await client.close();
    expect(error).toBeInstanceOf(WebhookTimeoutError);
    expect((error as WebhookTimeoutError).requestSent).toBe(false);
  });
});

/**
 * A TCP server that answers the first request with a status line, headers and `sent` bytes of a
 * body it announces as `announced` bytes long, then does what `then` says with the connection:
 * holds it open, or drops it. Resolves to its port; `connections` counts what reached it.
 */
async function partialBodyServer(
  sent: string,
  announced: number,
  then: "hold" | "drop",
): Promise<{ port: number; connections: () => number; closed: () => boolean }> {
  let connections = 0;
  let closed = false;
  const server = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.once("close", () => (closed = true));
    socket.once("data", () => {
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${announced}\r\n\r\n${sent}`,
      );
      if (then === "drop") socket.destroy();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    closed: () => closed,
  };
}

describe("the own connection's answer, read to its end (docs/client.md, Errors)", () => {
  const PARTIAL = '{"code":"0","data":{"records":[';

  it("a deadline while the body is still arriving is a timeout with the status it had, and the connection is closed", async () => {
    const server = await partialBodyServer(PARTIAL, 4096, "hold");
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accessToken: TOKEN,
      timeoutMs: 300,
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    expect(error).toBeInstanceOf(WebhookTimeoutError);
    expect(error).toMatchObject({ operation: "list", status: 200, requestSent: true });
    // Given up on: the socket is not left to the keep-alive pool half read.
    await waitUntil("the server sees its connection closed", server.closed);
    await client.close();
  });

  it("a connection dropped in the middle of the body may have been processed, and says what the service answered", async () => {
    const server = await partialBodyServer(PARTIAL, 4096, "drop");
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accessToken: TOKEN,
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    await client.close();
    expect(error).toBeInstanceOf(WebhookConnectionError);
    expect(error).toMatchObject({ operation: "list", status: 200, requestSent: true });
  });

  it("a caller's signal aborted before the call sends nothing", async () => {
    const server = await partialBodyServer(PARTIAL, 4096, "hold");
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accessToken: TOKEN,
      maxRetries: 0,
    });
    const cancelled = new AbortController();
    cancelled.abort();
    const error = await captureError(client.create(HOOK, { signal: cancelled.signal }));
    await client.close();
    expect(error).toBeInstanceOf(WebhookAbortError);
    expect(server.connections()).toBe(0);
  });

  it("a caller's cancel while the body is arriving stops it, and the client goes on serving", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN });
    const server = await partialBodyServer(PARTIAL, 4096, "hold");
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accessToken: TOKEN,
      maxRetries: 0,
    });
    const fresh = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const cancel = new AbortController();
      // Node publishes each client response once its status line and headers are read: the client's
      // own event, not the server's (under load the server may have written them long before).
      let answered = false;
      const onResponse = () => (answered = true);
      subscribe("http.client.response.finish", onResponse);
      const pending = client.list({}, { signal: cancel.signal, timeoutMs: 30_000 });
      try {
        await waitUntil("the client has read the answer's headers", () => answered);
      } finally {
        unsubscribe("http.client.response.finish", onResponse);
      }
      cancel.abort();
      const error = await captureError(pending);
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect(error).toMatchObject({ operation: "list", status: 200 });
      await waitUntil("the server sees its connection closed", server.closed);
      await expect(fresh.list({})).resolves.toMatchObject({ records: [] });
    } finally {
      await Promise.all([client.close(), fresh.close(), emulator.close()]);
    }
  });

  it("a body past 8 MB is refused as unusable, with its status", async () => {
    const big = `{"code":"0","data":{"records":[],"pad":"${"x".repeat(9 * 1024 * 1024)}"}}`;
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(big);
    });
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const error = await captureError(client.list({}));
      expect(error).toBeInstanceOf(WebhookInvalidResponseError);
      expect((error as Error).message).toMatch(/larger than 8 MB/);
      expect(error).toMatchObject({ operation: "list", status: 200 });
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("calls that end early: an answer that is none, a cancel or close() while waiting", () => {
  const listed = (records: unknown[] = []) =>
    JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: "t-1", data: { data: records } });
  const unavailable = JSON.stringify({ code: "503", msg: "unavailable", trace_id: "t-2", data: null });
  /**
   * A service whose gateway answers every create 502 while its listings find nothing, and a client
   * that looks for the endpoint such a create may have made for a long time. The settling's first
   * listing (the third request) is held unanswered: a test that waits for it knows it is in flight.
   */
  const settlingLong = async () => {
    const server = await rawServer((req, _body, res) => {
      const create = req.url?.endsWith("create") === true;
      if (server.requests.length >= 3) return;
      res.writeHead(create ? 502 : 200, { "content-type": "application/json" });
      res.end(create ? "<html>bad gateway</html>" : listed());
    });
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      createSettleMs: 600_000,
      maxRetries: 0,
    });
    return { server, client };
  };
  /**
   * A service reached through an in-process dispatcher that answers each path with `answer`, so that
   * a test knows when the client is done with an answer: `read()` counts the bodies read to their
   * end, and reading ends in-process, so what the client does next with an answer starts within a
   * turn of the event loop of its body's end.
   */
  const inProcess = (
    answer: (path: string, index: number) => { status: number; type: string; body: string },
    settings: Partial<WebhooksClientOptions>,
  ) => {
    const requests: string[] = [];
    let read = 0;
    const dispatcher = {
      request: (options: { path: string }) => {
        requests.push(options.path);
        const { status, type, body: text } = answer(options.path, requests.length - 1);
        const body = Readable.from([Buffer.from(text)]);
        body.once("end", () => read++);
        return Promise.resolve({ statusCode: status, headers: { "content-type": type }, body });
      },
    };
    const client = new WebhooksClient({
      baseUrl: "http://127.0.0.1:9",
      accessToken: TOKEN,
      dispatcher: dispatcher as unknown as Agent,
      ...settings,
    });
    return { requests, client, read: () => read };
  };
  /**
   * The backoff is full jitter (docs/client.md: `retryBaseDelayMs`), so however long the base, a wait
   * may be any length from 0 to its cap of 8 s: a test that acts "while the client waits" pins the
   * jitter at the top of its range, or a short draw lets the next attempt go out first on a slow
   * machine. Restored after each test.
   */
  const waitsAtTheirLongest = () => vi.spyOn(Math, "random").mockReturnValue(1 - Number.EPSILON);
  afterEach(() => {
    vi.restoreAllMocks();
  });
  /** Resolves once every request sent is read and no other is sent for a turn of the event loop. */
  const quietAfter = async (service: ReturnType<typeof inProcess>, least: number) => {
    for (;;) {
      await waitUntil(
        `${least} requests were sent and read`,
        () => service.requests.length >= least && service.read() === service.requests.length,
      );
      const sent = service.requests.length;
      await new Promise((resolve) => setImmediate(resolve));
      if (service.requests.length === sent && service.read() === sent) return sent;
    }
  };
  /**
   * A service that answers every call 503, and a client that waits long between its attempts.
   * `waiting()` resolves once the client has read the first answer and is waiting to retry.
   */
  const alwaysUnavailable = () => {
    waitsAtTheirLongest();
    const service = inProcess(() => ({ status: 503, type: "application/json", body: unavailable }), {
      retryBaseDelayMs: 600_000,
      maxRetries: 3,
    });
    return { ...service, waiting: () => quietAfter(service, 1) };
  };

  it("an answer that switches protocols (101) fails the call, however long its deadline, and close() returns", async () => {
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.once("data", () =>
        socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
      );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = new WebhooksClient({
      baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      accessToken: TOKEN,
      timeoutMs: 600_000,
      maxRetries: 0,
    });
    const error = await captureError(client.list({}));
    expect(error).toBeInstanceOf(WebhookConnectionError);
    expect(error).toMatchObject({ operation: "list", requestSent: true });
    expect((error as Error).message).toMatch(/101 Switching Protocols/);
    await client.close();
  });

  it("a cancel while a list waits to retry is the caller's cancel, a WebhookAbortError", async () => {
    const { requests, client, waiting } = alwaysUnavailable();
    try {
      const cancel = new AbortController();
      const pending = client.list({}, { signal: cancel.signal });
      await waiting();
      // A reason of the caller's own that holds the token: the error keeps its cause, not the token.
      cancel.abort(new Error(`stopped with ${TOKEN}`));
      const error = await captureError(pending);
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect(error).toMatchObject({ operation: "list" });
      expect(everythingVisible(error)).not.toContain(TOKEN);
      expect(everythingVisible(error)).toContain("stopped with");
      expect(requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  /**
   * The service of `settlingLong` in process: `settlingWaits()` resolves once the client is done
   * with the settling's first listings and waits before its next, with the number of requests sent.
   */
  const settlingLongInProcess = () => {
    const service = inProcess(
      (path) =>
        path.endsWith("create")
          ? { status: 502, type: "text/html", body: "<html>bad gateway</html>" }
          : { status: 200, type: "application/json", body: listed() },
      { createSettleMs: 600_000, maxRetries: 0 },
    );
    // The snapshot's listing, the create, then the settling's listings.
    return { ...service, settlingWaits: () => quietAfter(service, 3) };
  };

  it("a cancel while a create's settling waits between listings says the endpoint may have been created", async () => {
    const { requests, client, settlingWaits } = settlingLongInProcess();
    try {
      const cancel = new AbortController();
      const pending = client.create(HOOK, { signal: cancel.signal });
      const sent = await settlingWaits();
      // Node's own reason, a DOMException: its message cannot be written, and the client does not try.
      cancel.abort();
      const error = await captureError(pending);
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect(error).toMatchObject({ operation: "create", status: 502 });
      expect((error as Error).message).toMatch(/may have been created/);
      expect(requests.filter((path) => path.endsWith("create"))).toHaveLength(1);
      expect(requests).toHaveLength(sent);
    } finally {
      await client.close();
    }
  });

  it("a cancel while a create's settling lists says the endpoint may have been created", async () => {
    const { server, client } = await settlingLong();
    try {
      const cancel = new AbortController();
      const pending = client.create(HOOK, { signal: cancel.signal });
      await waitUntil("the settling's listing is in flight", () => server.requests.length >= 3);
      cancel.abort();
      const error = await captureError(pending);
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect(error).toMatchObject({ operation: "create", status: 502 });
      expect((error as Error).message).toMatch(/may have been created/);
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(1);
      expect(server.requests).toHaveLength(3);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("close() while a create's outcome is looked for stops looking, and says the endpoint may have been created", async () => {
    const { server, client } = await settlingLong();
    try {
      const pending = client.create(HOOK);
      await waitUntil("the settling's listing is in flight", () => server.requests.length >= 3);
      await client.close();
      const error = await captureError(pending);
      expect(error).toBeInstanceOf(WebhookCreateUncertainError);
      expect((error as Error).message).toMatch(/client was closed .* may have been created/);
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(1);
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it("close() while a create's settling waits between listings stops looking, and says the endpoint may have been created", async () => {
    const { requests, client, settlingWaits } = settlingLongInProcess();
    const pending = client.create(HOOK);
    const sent = await settlingWaits();
    await client.close();
    const error = await captureError(pending);
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    expect((error as Error).message).toMatch(/client was closed .* may have been created/);
    expect(requests.filter((path) => path.endsWith("create"))).toHaveLength(1);
    expect(requests).toHaveLength(sent);
  });

  /**
   * A service whose first create is answered only when the test says so (later ones at once; every
   * listing finds nothing), a client through a dispatcher that counts what it is given to send, and
   * the first create, sent and waiting for its answer.
   */
  const firstCreateHeld = async () => {
    let answerFirst: (() => void) | undefined;
    const server = await rawServer((req, _body, res) => {
      const send = (body: string) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(body);
      };
      if (!req.url?.endsWith("create")) return send(listed());
      const record = apiRecord({
        webhook_id: server.requests.length,
        webhook_name: HOOK.webhookName,
        webhook_url: HOOK.webhookUrl,
      });
      const answer = () => send(JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: "t", data: record }));
      if (answerFirst === undefined) answerFirst = answer;
      else answer();
    });
    const counter = { dispatched: 0 };
    const dispatcher = new Agent().compose((dispatch) => (options, handler) => {
      counter.dispatched++;
      return dispatch(options, handler);
    });
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, dispatcher, maxRetries: 0 });
    const first = client.create(HOOK);
    await waitUntil("the first create was sent", () => answerFirst !== undefined);
    return { server, client, dispatcher, counter, first, answerFirst: () => answerFirst?.() };
  };

  it("a create queued behind one of the same address ends on its own cancel, and the next still waits for the first", async () => {
    // Creates of one address through one client run one after another (docs/client.md, create). A
    // create waiting for its turn is the caller's to cancel, and a cancelled one must not let the
    // next run beside the first, still in flight.
    const { server, client, dispatcher, counter, first, answerFirst } = await firstCreateHeld();
    try {
      const sent = counter.dispatched;
      const cancel = new AbortController();
      const cancelled = client.create(HOOK, { signal: cancel.signal });
      const next = client.create(HOOK);
      cancel.abort(new Error(`stopped with ${TOKEN}`));
      const error = await captureError(cancelled);
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect((error as Error).message).toMatch(/waited for an earlier create .* nothing of it was sent/);
      expect(everythingVisible(error)).not.toContain(TOKEN);
      // Cancelled before it was queued, it ends at once too.
      expect(await captureError(client.create(HOOK, { signal: AbortSignal.abort() }))).toBeInstanceOf(
        WebhookAbortError,
      );
      // Every promise the cancel settled has run (microtasks run before the next turn of the loop):
      // had the next create started, its first listing would have been dispatched by now.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(counter.dispatched).toBe(sent);
      answerFirst();
      expect((await first).record.webhookId).toBeGreaterThan(0);
      // Its turn came once the first was answered: it lists, then creates.
      expect((await next).record.webhookId).toBeGreaterThan(0);
      expect(counter.dispatched).toBeGreaterThan(sent);
    } finally {
      await client.close();
      await dispatcher.close();
      await server.close();
    }
  });

  it("close() ends a create's wait for an earlier create of the same address; nothing of it is sent", async () => {
    const { server, client, dispatcher, counter, first, answerFirst } = await firstCreateHeld();
    try {
      const sent = counter.dispatched;
      const queued = client.create(HOOK);
      const closing = client.close();
      const error = await captureError(queued);
      expect(error).toBeInstanceOf(WebhookConnectionError);
      expect(error).toMatchObject({ operation: "create", requestSent: false });
      expect((error as Error).message).toMatch(/client was closed while it waited/);
      // The create in flight is answered and kept: close() waits for it.
      answerFirst();
      expect((await first).record.webhookId).toBeGreaterThan(0);
      await closing;
      expect(counter.dispatched).toBe(sent);
    } finally {
      await dispatcher.close();
      await server.close();
    }
  });

  it("a create's listing that outlasts its bound, with no signal of the caller's, is a timeout, not a cancel", async () => {
    // The listing before a create is bounded as a whole (docs/client.md, Errors: WebhookTimeoutError);
    // the clock is the test's, so no wait depends on the machine.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let firstAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (firstAnswered = resolve));
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(unavailable);
      firstAnswered();
    });
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      timeoutMs: 5_000,
      retryBaseDelayMs: 5_000,
      maxRetries: 100,
    });
    try {
      const outcome = captureError(client.create(HOOK));
      await answered;
      await vi.advanceTimersByTimeAsync(61_000);
      const error = await outcome;
      expect(error).toBeInstanceOf(WebhookTimeoutError);
      expect(error).toMatchObject({ operation: "list" });
      expect((error as Error).message).toMatch(/took longer than 60 s in all .* the create was not sent/);
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(0);
      // Never below one request's own deadline.
      const patient = new WebhooksClient({
        baseUrl: server.url,
        accessToken: TOKEN,
        timeoutMs: 120_000,
        retryBaseDelayMs: 5_000,
        maxRetries: 100,
      });
      let ended = false;
      const later = captureError(patient.create(HOOK)).finally(() => (ended = true));
      await vi.advanceTimersByTimeAsync(61_000);
      expect(ended).toBe(false);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(((await later) as Error).message).toMatch(/took longer than 120 s in all/);
      await patient.close();
    } finally {
      vi.useRealTimers();
      await client.close();
      await server.close();
    }
  });

  it("a cancel or close() once the settling has seen a new endpoint names it as the one that may be ours", async () => {
    // An endpoint of the declared name and URL that appeared since the create was sent is the
    // candidate (docs/client.md, Errors: WebhookCreateUncertainError's candidateIds); stopping
    // the wait to be sure must not drop what was seen.
    for (const stop of ["cancel", "close"] as const) {
      const server = await rawServer((req, _body, res) => {
        const create = req.url?.endsWith("create") === true;
        const created = server.requests.some((r) => r.path.endsWith("create"));
        const candidate = apiRecord({
          webhook_id: 77,
          webhook_name: HOOK.webhookName,
          webhook_url: HOOK.webhookUrl,
          create_time: Date.now(),
        });
        res.writeHead(create ? 502 : 200, { "content-type": "application/json" });
        res.end(create ? "<html>bad gateway</html>" : listed(created ? [candidate] : []));
      });
      const client = new WebhooksClient({
        baseUrl: server.url,
        accessToken: TOKEN,
        createSettleMs: 600_000,
        maxRetries: 0,
      });
      try {
        const cancel = new AbortController();
        const outcome = captureError(client.create(HOOK, { signal: cancel.signal }));
        // The snapshot's listing, the create, then two rounds of the settling's listing: the first
        // found it (one listing a round, by the declared name), the second is under way.
        const afterCreate = () =>
          server.requests.length - server.requests.findIndex((r) => r.path.endsWith("create")) - 1;
        await waitUntil(
          "the settling has listed twice",
          () => server.requests.some((r) => r.path.endsWith("create")) && afterCreate() >= 2,
        );
        if (stop === "cancel") cancel.abort();
        else await client.close();
        const error = await outcome;
        expect(error, stop).toBeInstanceOf(WebhookCreateUncertainError);
        expect((error as WebhookCreateUncertainError).candidateIds, stop).toEqual([77]);
        expect((error as Error).message, stop).toMatch(/settling was stopped .*\(id 77,/);
      } finally {
        await client.close();
        await server.close();
      }
    }
  });

  describe("a cancel's reason is anyone's object: the wait ends in a WebhookAbortError, whose cause shows no listed secret", () => {
    const SECRET = "whsec_scan_page_one_3c7e";
    /** A scan whose first page lists an endpoint with SECRET and whose next page is unavailable. */
    const scanWaiting = () => {
      waitsAtTheirLongest();
      return inProcess(
        (_path, index) =>
          index === 0
            ? {
                status: 200,
                type: "application/json",
                body: JSON.stringify({
                  code: "200",
                  msg: "SUCCESS",
                  trace_id: "t-1",
                  data: { data: [apiRecord({ webhook_id: 7, sign_secret: SECRET })], cursor: "c2" },
                }),
              }
            : { status: 503, type: "application/json", body: unavailable },
        { retryBaseDelayMs: 600_000, maxRetries: 3 },
      );
    };
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    };
    const throwingMessage = () =>
      Object.create(Error.prototype, {
        message: {
          get() {
            throw new TypeError("a getter that throws");
          },
        },
      }) as Error;
    const reasons: [string, () => unknown, RegExp][] = [
      ["a revoked proxy", revoked, /^aborted$/],
      ["an Error whose message getter throws", throwingMessage, /could not be read/],
      [
        "a frozen Error quoting the listed secret",
        () => Object.freeze(new Error(`stop at ${SECRET}`)),
        /^stop at/,
      ],
      [
        "a DOMException quoting the listed secret",
        () => new DOMException(`stop at ${SECRET}`, "AbortError"),
        /^stop at/,
      ],
    ];
    for (const [what, reason, cause] of reasons)
      it(`${what}, given while a scan waits to retry its second page`, async () => {
        const service = scanWaiting();
        try {
          const cancel = new AbortController();
          const pending = service.client.scan({}, { signal: cancel.signal });
          await quietAfter(service, 2);
          cancel.abort(reason());
          const error = await captureError(pending);
          expect(error).toBeInstanceOf(WebhookAbortError);
          expect(error).toMatchObject({ operation: "list" });
          expect(((error as Error).cause as Error).message).toMatch(cause);
          expect(everythingVisible(error)).not.toContain(SECRET);
          expect(service.requests).toHaveLength(2);
        } finally {
          await service.client.close();
        }
      });
  });

  it("close() ends a wait to retry, and nothing is sent again", async () => {
    const { requests, client, waiting } = alwaysUnavailable();
    const pending = client.list({});
    await waiting();
    await client.close();
    const error = await captureError(pending);
    expect(error).toBeInstanceOf(WebhookConnectionError);
    expect(error).toMatchObject({ operation: "list", requestSent: false });
    // The wait itself ended, not an attempt after it.
    expect((error as Error).message).toMatch(/list was not sent again: the client was closed/);
    // A call after close() is refused at once: not retried either.
    const after = await captureError(client.list({}));
    expect(after).toMatchObject({ requestSent: false });
    expect(requests).toHaveLength(1);
  });

  it("through a dispatcher too, close() refuses new calls and a cancelled call opens no connection", async () => {
    let connections = 0;
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(listed([apiRecord()]));
    });
    const counting = new Agent({ connect: { timeout: 10_000 } }).compose((dispatch) => (options, handler) => {
      connections++;
      return dispatch(options, handler);
    });
    const make = () =>
      new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, dispatcher: counting, maxRetries: 0 });
    try {
      const cancelled = make();
      const error = await captureError(cancelled.list({}, { signal: AbortSignal.abort() }));
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect(connections).toBe(0);
      const closed = make();
      await closed.close();
      expect(await captureError(closed.create(HOOK))).toMatchObject({ requestSent: false });
      expect(connections).toBe(0);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
