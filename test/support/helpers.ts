import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import type { EmulatorOptions } from "../../src/emulator";

/** A bare HTTP server on port 0 for responses no faithful emulator would send. */
export async function rawServer(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{
  url: string;
  requests: { path: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}> {
  const requests: { path: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ path: req.url ?? "", headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Everything a caller could see of an error: message, stack, own properties and the whole cause
 * chain, as one string to search for secrets.
 */
export function everythingVisible(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    parts.push(current instanceof Error ? current.toString() : inspect(current));
    if (current instanceof Error) {
      parts.push(current.stack ?? "", current.message);
      for (const key of Object.getOwnPropertyNames(current)) {
        parts.push(`${key}=${safeString((current as unknown as Record<string, unknown>)[key])}`);
      }
    }
    parts.push(inspect(current, { depth: 8, showHidden: true }));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join("\n");
}

function safeString(value: unknown): string {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return inspect(value, { depth: 4 });
  }
}

export async function captureError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}

export const TOKEN = "tok_live_5f2c9a71d3e84b06a1c7e2f9b8d4c3a2";

/**
 * Polls `condition` until it holds, and fails naming `what` if it still does not after `seconds`:
 * for "the server has processed it", instead of a pause that a busy machine does not honour. The
 * deadline is generous on purpose; a condition that holds ends the wait at once.
 */
export async function waitUntil(what: string, condition: () => boolean, seconds = 30): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${seconds} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A record as the API document shows one (every field), for servers a test scripts; `fields` override. */
export function apiRecord(fields: Partial<ApiRecordFields> = {}): ApiRecordFields {
  const id = fields.webhook_id ?? 1;
  const name = fields.webhook_name ?? `n${id}`;
  const creator = { id: fields.creator_id ?? 1, name: fields.creator_name ?? "c" };
  const time = fields.create_time ?? 1;
  return {
    webhook_id: id,
    webhook_name: name,
    webhook_url: `https://example.com/${name}`,
    sign_secret: `whsec_${id}`,
    creator_id: creator.id,
    creator_name: creator.name,
    create_time: time,
    operator_id: creator.id,
    operator_name: creator.name,
    operate_time: time,
    ...fields,
  };
}
export interface ApiRecordFields {
  webhook_id: number;
  webhook_name: string;
  webhook_url: string;
  sign_secret: string;
  creator_id: number;
  creator_name: string;
  create_time: number;
  operator_id: number;
  operator_name: string;
  operate_time: number;
}

/** The other team of the taken-name tests: its token and the creator the service gives it. */
export const OTHER_TEAM = {
  token: "tok_other_team_5f8a0c3e7d",
  creator: { id: 200, name: "other-team" },
} as const;

/**
 * Emulator options for a service that keeps names unique and answers a create of a taken name with
 * the endpoint that has it (an idempotent create), shared with `OTHER_TEAM`; a create a test injects
 * latency into is held `slowMs` after its body was read.
 */
export function takenNameService(accessToken: string, slowMs = 2_000): EmulatorOptions {
  return {
    accessToken,
    uniqueNames: true,
    takenName: "existing",
    principals: [{ token: OTHER_TEAM.token, creator: { ...OTHER_TEAM.creator } }],
    faults: { create: { rate: 0, slowMs } },
  };
}

/** A create sent over HTTP with `token` (another team's client); resolves to the record the service answered. */
export async function createAs(
  baseUrl: string,
  token: string,
  endpoint: { webhookName: string; webhookUrl: string },
): Promise<{ webhook_id: number; creator_id: number }> {
  const response = await fetch(`${baseUrl}/open-api/v1/webhooks/create`, {
    method: "POST",
    headers: { Authorization: token, "Content-Type": "application/json" },
    body: JSON.stringify({ webhook_name: endpoint.webhookName, webhook_url: endpoint.webhookUrl }),
  });
  return ((await response.json()) as { data: { webhook_id: number; creator_id: number } }).data;
}
