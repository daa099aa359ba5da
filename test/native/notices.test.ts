// A notice the plugin sends the engine while a call runs (the service stored a name or URL in its
// own form) lands under that call's resource, however many calls are in flight: the engine shows
// it beside that resource in the update's output. The plugin runs as the engine starts it, and a
// stand-in for the engine's Log service records what it is sent.
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../support/global-setup";
import { TOKEN, waitUntil } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";
import { TRACE } from "../support/scripted-service";

const pulumiRequire = createRequire(join(REPO, "node_modules/@pulumi/pulumi/package.json"));
const grpc = pulumiRequire("@grpc/grpc-js");
const engineRpc = pulumiRequire("./proto/engine_grpc_pb");
const pluginPb = pulumiRequire("./proto/plugin_pb");
const emptyPb = pulumiRequire("google-protobuf/google/protobuf/empty_pb");

const URN = (name: string) => `urn:pulumi:dev::notices::webhooks:index:WebhookEndpoint::${name}`;

/**
 * A service that lists nothing (and says nothing follows) and holds every create until `hold`
 * creates have arrived, then stores each URL with its host lower-cased, as a service may.
 */
async function holdingService(hold: number): Promise<{ server: Server; url: string }> {
  const waiting: (() => void)[] = [];
  let nextId = 500;
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      const send = (payload: unknown) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(payload));
      };
      if (!req.url?.endsWith("/create")) {
        send({ code: "200", msg: "SUCCESS", trace_id: TRACE, data: { data: [], has_more: false } });
        return;
      }
      const body = JSON.parse(text) as { webhook_name: string; webhook_url: string };
      const id = nextId++;
      const answer = () => {
        const now = Date.now();
        const url = new URL(body.webhook_url).href;
        send({
          code: "200",
          msg: "Success",
          trace_id: TRACE,
          data: {
            webhook_id: id,
            webhook_name: body.webhook_name,
            webhook_url: url,
            sign_secret: `whsec_notice_${id}`,
            creator_id: 7,
            creator_name: "pipeline",
            create_time: now,
            operator_id: 7,
            operator_name: "pipeline",
            operate_time: now,
          },
        });
      };
      waiting.push(answer);
      if (waiting.length >= hold) for (const release of waiting.splice(0)) release();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}` };
}

describe("the native plugin's notices", () => {
  let plugin: ProviderHost;
  let service: { server: Server; url: string };
  let engine: { forceShutdown(): void };
  const logs: { urn: string; message: string }[] = [];

  beforeAll(async () => {
    service = await holdingService(2);
    const server = new grpc.Server();
    server.addService(engineRpc.EngineService, {
      log: (
        call: { request: { getUrn(): string; getMessage(): string } },
        done: (e: null, r: unknown) => void,
      ) => {
        logs.push({ urn: call.request.getUrn(), message: call.request.getMessage() });
        done(null, new emptyPb.Empty());
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(
        "127.0.0.1:0",
        grpc.ServerCredentials.createInsecure(),
        (error: Error | null, bound: number) => (error ? reject(error) : resolve(bound)),
      );
    });
    engine = server;
    plugin = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
    const attach = new pluginPb.PluginAttach();
    attach.setAddress(`127.0.0.1:${port}`);
    expect((await plugin.callRaw("attach", attach)).error).toBeUndefined();
    await plugin.configure({ baseUrl: service.url, accessToken: TOKEN });
  });
  afterAll(async () => {
    await plugin.stop();
    engine.forceShutdown();
    await new Promise((resolve) => service.server.close(resolve));
  });

  it("two creates in flight at once: each stored-form notice is logged under its own resource", async () => {
    const [alpha, bravo] = await Promise.all([
      plugin.create(URN("alpha"), { webhookName: "alpha", webhookUrl: "https://EXAMPLE.com/alpha" }),
      plugin.create(URN("bravo"), { webhookName: "bravo", webhookUrl: "https://EXAMPLE.com/bravo" }),
    ]);
    const about = (id: string) => logs.filter((log) => log.message.startsWith(`webhook endpoint ${id}:`));
    await waitUntil(
      "both notices reach the engine",
      () => about(alpha.id).length + about(bravo.id).length >= 2,
    );
    expect(about(alpha.id).map((log) => log.urn)).toEqual([URN("alpha")]);
    expect(about(bravo.id).map((log) => log.urn)).toEqual([URN("bravo")]);
  });
});
