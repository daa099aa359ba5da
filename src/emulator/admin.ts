// The admin routes under /__emulator/: a table of (path, method) -> handler over the public
// Emulator interface, behind a guard for a developer's machine. Any web page can make a browser
// send requests to localhost, so a request must name a loopback Host (no DNS rebinding), carry a
// credential in Authorization (which a cross-site "simple" request cannot), and send its body as
// application/json (text/plain, the "simple" content type, is refused). No CORS headers are sent.
import { injectionSchema } from "./options";
import {
  ApiError,
  namesLoopbackHost,
  bodyObject,
  isJsonContentType,
  parseJsonBody,
  presentsToken,
} from "./protocol";
import { EmulatorConfigError, parseWith } from "./resolve";
import { ADMIN_PREFIX, writeJson, type Exchange } from "./server";
import type { Emulator, WebhookInput } from "./types";

type Method = "GET" | "POST" | "PATCH" | "DELETE";

interface AdminRequest {
  /** Captures of the route's pattern. */
  params: string[];
  /** The body as a JSON object; an empty body is `{}`. */
  body: () => Record<string, unknown>;
}

interface AdminReply {
  status: number;
  payload: unknown;
}

type AdminHandler = (emulator: Emulator, request: AdminRequest) => AdminReply;

interface AdminRoute {
  pattern: RegExp;
  methods: Partial<Record<Method, AdminHandler>>;
}

const ok = (payload: unknown): AdminReply => ({ status: 200, payload });
const notFound = (id: number): AdminReply => ({ status: 404, payload: { error: `no record ${id}` } });

const ROUTES: readonly AdminRoute[] = [
  { pattern: /^health$/, methods: { GET: () => ok({ ok: true }) } },
  {
    pattern: /^records$/,
    methods: {
      GET: (emulator) => ok(emulator.records()),
      POST: (emulator, request) => ({
        status: 201,
        payload: emulator.addRecord(request.body() as unknown as WebhookInput),
      }),
    },
  },
  {
    pattern: /^records\/(\d{1,15})$/,
    methods: {
      PATCH: (emulator, { params, body }) => {
        const id = Number(params[0]);
        const updated = emulator.updateRecord(id, body());
        return updated === undefined ? notFound(id) : ok(updated);
      },
      DELETE: (emulator, { params }) => {
        const id = Number(params[0]);
        return emulator.removeRecord(id) ? ok({ removed: id }) : notFound(id);
      },
    },
  },
  { pattern: /^requests$/, methods: { GET: (emulator) => ok(emulator.requests()) } },
  { pattern: /^counters$/, methods: { GET: (emulator) => ok(emulator.counters()) } },
  {
    pattern: /^reset$/,
    methods: {
      POST: (emulator) => {
        emulator.reset();
        return ok({ ok: true });
      },
    },
  },
  {
    pattern: /^config$/,
    methods: {
      GET: (emulator) => ok(emulator.options()),
      POST: (emulator, request) => {
        emulator.configure(request.body());
        return ok(emulator.options());
      },
    },
  },
  {
    pattern: /^inject$/,
    methods: {
      POST: (emulator, request) => {
        const { route, kind, count, after } = parseWith(injectionSchema, request.body(), "inject");
        emulator.injectNext(route, kind, count, { after });
        return ok({ ok: true });
      },
    },
  },
];

/**
 * Serves one admin request. Only the admin token opens the admin routes: the API access token is
 * shared with every client (often a well-known one), and the routes can change every setting, the
 * tokens included. Host and token are checked from the headers, before the body is read.
 */
export async function serveAdmin(emulator: Emulator, exchange: Exchange, adminToken: string): Promise<void> {
  const { req, res } = exchange;
  const method = req.method ?? "GET";
  const refuse = (status: number, error: string, headers: Record<string, string> = {}) =>
    writeJson(res, status, { error }, headers);

  if (!namesLoopbackHost(req)) {
    exchange.discard();
    refuse(403, "admin routes answer only requests whose Host is localhost, 127.0.0.1 or [::1]");
    return;
  }
  if (!presentsToken(req.headers.authorization, adminToken)) {
    exchange.discard();
    refuse(
      401,
      "admin routes need the admin token (printed at start, `adminToken` in-process) in Authorization; the API access token does not open them",
    );
    return;
  }
  const received = await exchange.receive();
  // Every request that may change something, and every request with a body, declares JSON.
  const mayChange = method !== "GET" && method !== "HEAD";
  if ((mayChange || received.bytes.length > 0) && !isJsonContentType(req.headers["content-type"])) {
    refuse(
      415,
      "admin requests that change something or carry a body must send Content-Type: application/json",
    );
    return;
  }
  if (received.tooLarge) {
    refuse(413, `request body exceeds ${received.limit} bytes`);
    return;
  }

  const found = findRoute(exchange.path.slice(ADMIN_PREFIX.length));
  if (found === undefined) {
    refuse(404, `unknown admin route ${exchange.path}`);
    return;
  }
  const handler = found.methods[method as Method];
  if (handler === undefined) {
    const allowed = Object.keys(found.methods);
    refuse(405, `use ${allowed.join(" or ")}`, { allow: allowed.join(", ") });
    return;
  }
  const body = parseJsonBody(received.bytes);
  try {
    const reply = handler(emulator, { params: found.params, body: () => bodyObject(body, {}) });
    writeJson(res, reply.status, reply.payload);
  } catch (error) {
    if (error instanceof ApiError) refuse(error.status, error.message);
    else if (error instanceof EmulatorConfigError) refuse(400, error.message);
    else throw error;
  }
}

function findRoute(route: string): { methods: AdminRoute["methods"]; params: string[] } | undefined {
  for (const candidate of ROUTES) {
    const match = candidate.pattern.exec(route);
    if (match !== null) return { methods: candidate.methods, params: match.slice(1) };
  }
  return undefined;
}
