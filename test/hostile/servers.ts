/**
 * Hostile servers for the child-process suite: plain node:http servers written to hurt a client
 * (not the emulator, which is faithful to the document). Each answers both routes of the API and
 * is stateless, so several child processes may use one at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { CREATE_PATH, LIST_PATH } from "../../src/client";

export const TRACE = "0123456789abcdef0123456789abcdef";
const NOW = Date.now();
export const NAME = "orders";
export const URL_ = "https://example.com/hooks/orders";

export interface HostileSpec {
  name: string;
  /** What it sends, for the table. */
  what: string;
  /**
   * A known bug (test/hostile/regressions.test.ts) this server exposes, and the kind of problem it
   * causes: rows with only that kind of problem report it instead of failing.
   */
  knownBug?: { id: string; kind: "token" | "rss" };
  /** The error class `list`, `listAll` and `scan` must end with (a name), when the server decides it. */
  listEnds?: string;
  handle(
    request: { path: string; body: Record<string, unknown>; token: string },
    res: ServerResponse,
    context: ServerContext,
  ): void;
}

export interface ServerContext {
  /** Base URL of another host, which must never be contacted. */
  otherHost: string;
}

export const record = (id: number, over: Record<string, unknown> = {}) => ({
  webhook_id: id,
  webhook_name: id === 1 ? NAME : `hook-${id}`,
  webhook_url: id === 1 ? URL_ : `https://example.com/hooks/${id}`,
  sign_secret: `whsec_${id}`,
  creator_id: 7,
  creator_name: "ci",
  create_time: NOW,
  operator_id: 7,
  operator_name: "ci",
  operate_time: NOW,
  ...over,
});

const envelope = (data: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: TRACE, ...extra, data });

function reply(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

/** Built once, on first use: the large bodies (tens of MB in all). */
const lazy = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const bodies = {
  page5000: lazy(() =>
    Buffer.from(envelope({ data: Array.from({ length: 5000 }, (_, i) => record(i + 1)) })),
  ),
  page50000: lazy(() =>
    Buffer.from(envelope({ data: Array.from({ length: 50_000 }, (_, i) => record(i + 1)) })),
  ),
  trace10MB: lazy(() => ({
    list: Buffer.from(envelope({ data: [record(1)] }, { trace_id: "f".repeat(10 * 1024 * 1024) })),
    create: Buffer.from(envelope(record(1), { trace_id: "f".repeat(10 * 1024 * 1024) })),
  })),
  trace7MB: lazy(() => ({
    list: Buffer.from(envelope({ data: [record(1)] }, { trace_id: "a".repeat(7 * 1024 * 1024) })),
    create: Buffer.from(envelope(record(2), { trace_id: "a".repeat(7 * 1024 * 1024) })),
  })),
  msg10MB: lazy(() =>
    Buffer.from(JSON.stringify({ code: "50001", msg: "m".repeat(10 * 1024 * 1024), trace_id: TRACE })),
  ),
  name5MB: lazy(() => ({
    list: Buffer.from(envelope({ data: [record(1, { webhook_name: "n".repeat(5 * 1024 * 1024) })] })),
    create: Buffer.from(envelope(record(2, { webhook_name: "n".repeat(5 * 1024 * 1024) }))),
  })),
  body9MB: lazy(() => ({
    list: Buffer.from(envelope({ data: [record(1)], padding: " ".repeat(9 * 1024 * 1024) })),
    create: Buffer.from(envelope(record(2), { padding: " ".repeat(9 * 1024 * 1024) })),
  })),
  deepInData: lazy(() => ({
    list: Buffer.from(
      `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":{"data":${deepArray(1_000_000)}}}`,
    ),
    create: Buffer.from(
      `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":${deepArray(1_000_000)}}`,
    ),
  })),
  deepInExtra: lazy(() => ({
    list: Buffer.from(
      `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","extra":${deepArray(1_000_000)},"data":{"data":[${JSON.stringify(record(1))}]}}`,
    ),
    create: Buffer.from(
      `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","extra":${deepArray(1_000_000)},"data":${JSON.stringify(record(2))}}`,
    ),
  })),
  /** Just under 8,000,000 bytes of empty objects: 2.6 million values for a JSON parser to build. */
  tinyValues: lazy(() => {
    const count = Math.floor((7_990_000 - 200) / 3);
    return {
      list: Buffer.from(
        `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":{"data":[],"x":[${"{},".repeat(count - 1)}{}]}}`,
      ),
      create: Buffer.from(
        `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","x":[${"{},".repeat(count - 1)}{}],"data":${JSON.stringify(record(2))}}`,
      ),
    };
  }),
  /**
   * A gzip bomb: 128 gzip members of 16 MiB of blanks each (a reader must inflate all members), so
   * about 2 MB on the wire that inflate to 2 GiB of "valid" JSON.
   */
  gzipBomb: lazy(() => {
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024, " "), { level: 9 });
    const head = gzipSync(`{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":{"data":[`);
    return Buffer.concat([head, ...Array.from({ length: 128 }, () => member), gzipSync("]}}")]);
  }),
  fatRecord: lazy(() => ({
    webhook_name: "n".repeat(4000),
    webhook_url: `https://example.com/${"u".repeat(16_000)}`,
    sign_secret: "s".repeat(4000),
    creator_name: "c".repeat(4000),
    operator_name: "o".repeat(4000),
  })),
};

/** Control characters and terminal escape sequences, as a service might let them through. */
const ANSI_MSG =
  "\u001b[2J\u001b[H\u001b]0;owned\u0007\u009b31mname already taken\u009b0m\r\n\u202egnp.exe\u202c\u200b\u0000";
const ANSI_NAME = "\u001b]8;;https://evil.example\u0007orders\u001b]8;;\u0007\u009b2J\u0085";

export function hostileSpecs(token: string): HostileSpec[] {
  const limitOf = (body: Record<string, unknown>) =>
    typeof body.limit === "number" && body.limit > 0 ? Math.min(body.limit, 10_000) : 100;
  const pageNumber = (body: Record<string, unknown>) =>
    typeof body.cursor === "string" && body.cursor.startsWith("c") ? Number(body.cursor.slice(1)) : 0;
  return [
    {
      name: "endless-cursors",
      what: "a new cursor every page, every page full",
      listEnds: "WebhookPagingError",
      handle({ path, body }, res) {
        if (path === CREATE_PATH) return reply(res, 200, envelope(record(1)));
        const page = pageNumber(body);
        const limit = limitOf(body);
        reply(
          res,
          200,
          envelope({
            data: Array.from({ length: limit }, (_, i) => record(page * limit + i + 2)),
            next_cursor: `c${page + 1}`,
          }),
        );
      },
    },
    {
      name: "endless-fat-records",
      what: "endless full pages of records at every field cap (~3 MB a page)",
      listEnds: "WebhookPagingError",
      handle({ path, body }, res) {
        if (path === CREATE_PATH) return reply(res, 200, envelope(record(1)));
        const page = pageNumber(body);
        const limit = limitOf(body);
        const fat = bodies.fatRecord();
        reply(
          res,
          200,
          envelope({
            data: Array.from({ length: limit }, (_, i) => record(page * limit + i + 2, fat)),
            cursor: `c${page + 1}`,
          }),
        );
      },
    },
    {
      name: "page-5000",
      what: "5,000 records a page, whatever the limit",
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        if (path === CREATE_PATH) return reply(res, 200, envelope(record(2)));
        reply(res, 200, bodies.page5000());
      },
    },
    {
      name: "page-50000",
      what: "50,000 records a page (13 MB)",
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        if (path === CREATE_PATH) return reply(res, 200, envelope(record(2)));
        reply(res, 200, bodies.page50000());
      },
    },
    {
      name: "trace-id-10MB",
      what: "a 10 MB trace_id",
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.trace10MB().create : bodies.trace10MB().list);
      },
    },
    {
      name: "trace-id-7MB",
      what: "a 7 MB trace_id (under the body cap)",
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.trace7MB().create : bodies.trace7MB().list);
      },
    },
    {
      name: "msg-10MB",
      what: "HTTP 500 with a 10 MB msg",
      listEnds: "WebhookInvalidResponseError",
      handle(_request, res) {
        reply(res, 500, bodies.msg10MB());
      },
    },
    {
      name: "msg-ansi-token",
      what: "HTTP 400: 2 MB msg of escape sequences and the token, code with ANSI",
      listEnds: "WebhookRequestRefusedError",
      handle(_request, res) {
        reply(
          res,
          400,
          JSON.stringify({
            code: "\u001b[31m40001\u001b[0m",
            msg: `${ANSI_MSG} ${token} `.repeat(20_000),
            trace_id: TRACE,
          }),
        );
      },
    },
    {
      name: "names-5MB",
      what: "a record whose webhook_name is 5 MB",
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.name5MB().create : bodies.name5MB().list);
      },
    },
    {
      name: "body-9MB",
      what: "a valid envelope padded to 9 MB",
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.body9MB().create : bodies.body9MB().list);
      },
    },
    {
      name: "deep-array-data",
      what: "data a 1e6-deep array (2 MB)",
      knownBug: { id: "B8", kind: "rss" },
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.deepInData().create : bodies.deepInData().list);
      },
    },
    {
      name: "deep-array-extra",
      what: "a valid page plus a 1e6-deep array in an extra field",
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.deepInExtra().create : bodies.deepInExtra().list);
      },
    },
    {
      name: "tiny-values-8MB",
      what: "a valid page plus 2.7 million {} (7.99 MB)",
      knownBug: { id: "B8", kind: "rss" },
      handle({ path }, res) {
        reply(res, 200, path === CREATE_PATH ? bodies.tinyValues().create : bodies.tinyValues().list);
      },
    },
    {
      name: "slow-drip",
      what: "a valid body, 1 byte per 100 ms",
      listEnds: "WebhookTimeoutError",
      handle({ path }, res) {
        const body = Buffer.from(
          path === CREATE_PATH ? envelope(record(2)) : envelope({ data: [record(1)] }),
        );
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
        let at = 0;
        const timer = setInterval(() => {
          if (at >= body.length || res.destroyed) return clearInterval(timer);
          res.write(body.subarray(at, ++at));
        }, 100);
        res.on("close", () => clearInterval(timer));
      },
    },
    {
      name: "content-length-lie-hang",
      what: "Content-Length 100000, 60 bytes sent, then silence",
      listEnds: "WebhookTimeoutError",
      handle(_request, res) {
        res.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
        res.write(envelope({ data: [] }).slice(0, 60));
      },
    },
    {
      name: "content-length-lie-short",
      what: "Content-Length 20 on a whole valid body",
      listEnds: "WebhookInvalidResponseError",
      handle({ path }, res) {
        const body = path === CREATE_PATH ? envelope(record(2)) : envelope({ data: [record(1)] });
        // Node checks Content-Length against what is written; write to the socket behind it.
        res.socket?.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 20\r\n\r\n${body}`,
        );
        res.socket?.end();
      },
    },
    {
      name: "gzip-bomb",
      what: "content-encoding: gzip, 2 MB inflating to 2 GiB",
      listEnds: "WebhookInvalidResponseError",
      handle(_request, res) {
        reply(res, 200, bodies.gzipBomb(), { "content-encoding": "gzip" });
      },
    },
    {
      name: "ansi-c1-controls",
      what: "escape sequences and C1 controls in msg, code and names",
      handle({ path }, res) {
        if (path === CREATE_PATH)
          return reply(
            res,
            400,
            JSON.stringify({ code: "\u001b[31m40001\u009b", msg: ANSI_MSG, trace_id: TRACE }),
          );
        reply(
          res,
          200,
          envelope({
            data: [
              record(1, { webhook_name: ANSI_NAME, creator_name: ANSI_MSG }),
              record(3, { webhook_name: `${NAME}\u001b[8m`, webhook_url: URL_ }),
            ],
          }),
        );
      },
    },
    {
      name: "redirect-token",
      what: "307 to another host, token in the query",
      listEnds: "WebhookRequestRefusedError",
      handle({ path }, res, context) {
        res.writeHead(307, {
          location: `${context.otherHost}${path}?access_token=${encodeURIComponent(token)}`,
          "set-cookie": `t=${token}`,
        });
        res.end(JSON.stringify({ code: "307", msg: `moved, bring ${token}` }));
      },
    },
    {
      name: "token-echo",
      what: "401 echoing the token in msg, code, trace_id and headers",
      listEnds: "WebhookAuthError",
      handle(_request, res) {
        reply(
          res,
          401,
          JSON.stringify({
            code: `401 ${token}`,
            msg: `invalid token ${token}`,
            message: token,
            trace_id: token,
          }),
          {
            "x-trace-id": token,
            "www-authenticate": `Bearer ${token}`,
          },
        );
      },
    },
    {
      name: "token-split",
      what: "400 echoing the token split by a newline and a zero-width space",
      knownBug: { id: "B2", kind: "token" },
      listEnds: "WebhookRequestRefusedError",
      handle(_request, res) {
        reply(
          res,
          400,
          JSON.stringify({
            code: `4001${token.slice(0, 3)}\u200b${token.slice(3)}`,
            msg: `bad token ${token.slice(0, 12)}\n${token.slice(12)}`,
            trace_id: TRACE,
          }),
        );
      },
    },
    {
      name: "token-in-records",
      what: "records like ours whose creator_name is the token",
      knownBug: { id: "B3", kind: "token" },
      handle({ path }, res) {
        if (path === CREATE_PATH) return reply(res, 200, envelope(record(2)));
        reply(
          res,
          200,
          envelope({
            data: [
              record(1, { creator_name: token }),
              record(4, { webhook_name: "ORDERS", creator_name: `${token} admin` }),
            ],
          }),
        );
      },
    },
  ];
}

/** Starts one spec's server on loopback; requests are parsed and handed to the spec. */
export async function startHostile(
  spec: HostileSpec,
  token: string,
  context: ServerContext,
): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests++;
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        // Not ours to judge: the handler decides what to send.
      }
      const path = (req.url ?? "").split("?")[0]!;
      if (path !== LIST_PATH && path !== CREATE_PATH) return reply(res, 404, "{}");
      try {
        spec.handle({ path, body, token }, res, context);
      } catch {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    });
  });
  // Writes to sockets the client gave up on fail; that is the point of several of these servers.
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The "other host" a redirect points to: it counts whatever reaches it. */
export async function startOtherHost(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(envelope({ data: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.2:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
