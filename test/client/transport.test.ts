// The client's own connections (Node's http and https modules, one keep-alive agent): what a failed
// attempt says of whether the request may have reached the service, and what close() waits for. Real
// sockets on loopback throughout.
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebhookConnectionError, WebhookTimeoutError, WebhooksClient } from "../../src/client";
import { startEmulator } from "../../src/emulator";
import { TOKEN, captureError } from "../support/helpers";

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
      timeoutMs: 300,
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
