// Three deployments that differ from the emulator's defaults, through the real engine, where a user meets
// them (docs/reliability.md, "Facts before claims";
// docs/client.md, "Create and the settle rules"):
// 1. a gateway that answers 503 after the service committed a create: `up` settles it by listing,
//    never sends it again, and the service holds one endpoint per resource;
// 2. a service that takes 20 s to create, with the client's 10 s timeout (an older release made two
//    endpoints): `up` makes exactly one;
// 3. a service that caps its pages without saying so (the emulator's page-cap profile) and holds
//    more endpoints than one page: `refresh` of an endpoint renamed and re-pointed on the console
//    keeps it and says why; `pulumi import` of an endpoint past the first page says the listing may
//    be incomplete and how to narrow it;
// 4. a service that reads the list request's cursor as a record offset (a "paging position", the API
//    document's words), sends no continuation and caps its pages at 50: the record id the client sends
//    as the cursor is answered with an empty page, which proves nothing (docs/client.md, "Whether a
//    listing is complete"): `refresh` keeps an endpoint renamed and re-pointed on the console.
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { listByReading, othersRecords } from "../support/cursor-readings";
import { waitUntil } from "../support/helpers";
import { scriptedService } from "../support/scripted-service";
import { installPlugin, noNodeBin } from "./plugin";
import { backendFor, createProject, duplicateNames, transcript, webhookResources } from "./support";

const TOKEN = "e2e_tok_listing_6a1f93c2d4";

/** N endpoints named `<prefix>-<i>`, sized from the environment. */
const FLEET_PROGRAM = `import { WebhookEndpoint } from "pulumi-webhook-endpoints";
const count = Number(process.env.FLEET_SIZE ?? "1");
const prefix = process.env.FLEET_PREFIX ?? "fleet";
const hooks = Array.from({ length: count }, (_, i) => new WebhookEndpoint(\`\${prefix}-\${i}\`, { webhookUrl: \`https://example.com/hooks/\${prefix}/\${i}\` }));
export const ids = hooks.map((hook) => hook.webhookId);
`;

const emulators: Emulator[] = [];
const scripted: Awaited<ReturnType<typeof scriptedService>>[] = [];
afterAll(async () => {
  for (const emulator of emulators) await emulator.close();
  for (const service of scripted) await service.close();
});

async function emulator(options: Parameters<typeof startEmulator>[0] = {}): Promise<Emulator> {
  const started = await startEmulator({ accessToken: TOKEN, ...options });
  emulators.push(started);
  return started;
}

function fleet(
  id: string,
  service: { url: string },
  size: number,
  prefix: string,
  env: Record<string, string> = {},
) {
  const backend = backendFor(`listing-${id}`);
  return createProject(
    "quickstart",
    `listing-${id}`,
    {
      ...backend.env,
      WEBHOOKS_BASE_URL: service.url,
      WEBHOOKS_ACCESS_TOKEN: TOKEN,
      FLEET_SIZE: String(size),
      FLEET_PREFIX: prefix,
      ...env,
    },
    { "index.ts": FLEET_PROGRAM },
  );
}

const createsOf = (service: Emulator) => service.requests().filter((r) => r.route === "create");

describe("no duplicate behind a gateway, none from a slow service", () => {
  it("a gateway's 503 after the service committed the second create: settled by listing, one endpoint per resource", async () => {
    const service = await emulator();
    // The first create passes (and shows the client its principal); the second is committed, then
    // answered by the gateway with Envoy's 503 and its text, not the service's envelope.
    service.injectNext("create", "gateway-error", 1, { after: 1 });
    const project = fleet("gateway", service, 2, "gw");
    await project.initStack("dev");
    const up = await project.ok(["up", "--yes", "--skip-preview", "--parallel", "1"]);
    expect(service.counters().faults["gateway-error"]).toBe(1);
    expect(createsOf(service)).toHaveLength(2);
    expect(service.records()).toHaveLength(2);
    expect(duplicateNames(service)).toEqual([]);
    expect(
      webhookResources(await project.exportState())
        .map((r) => r.id)
        .sort(),
    ).toEqual(service.records().map((r) => String(r.webhook_id)));
    console.log(
      `gateway 503 after commit: ${createsOf(service).length} create requests, ${service.records().length} endpoints for 2 resources, up ${up.ms} ms`,
    );
    await project.ok(["preview", "--expect-no-changes"]);
  });

  it("a service that takes 20 s to create, the client's timeoutMs at its default 10 s: exactly one endpoint", async () => {
    const service = await emulator({ faults: { create: { rate: 0, slowMs: 20_000 } } });
    service.injectNext("create", "latency");
    const project = fleet("slow", service, 1, "slow");
    await project.initStack("dev");
    const up = await project.ok(["up", "--yes", "--skip-preview"]);
    // Every create the service received is made, however long after the run it lands.
    await waitUntil(
      "every create request is processed",
      () => service.counters().created === createsOf(service).length,
      60,
    );
    console.log(
      `slow service (20 s create, default timeouts): ${createsOf(service).length} create request(s), ${service.records().length} endpoint(s), up ${up.ms} ms`,
    );
    expect(service.records()).toHaveLength(1);
    expect(createsOf(service)).toHaveLength(1);
    expect(webhookResources(await project.exportState()).map((r) => r.id)).toEqual([
      String(service.records()[0]!.webhook_id),
    ]);
  }, 180_000);
});

describe("a service whose listing stops at its first page (a silent cap of 50)", () => {
  it("refresh keeps an endpoint renamed and re-pointed on the console, and says why; the next preview replaces it", async () => {
    const service = await emulator({ profile: "page-cap" });
    for (let i = 1; i <= 80; i++)
      service.addRecord({ webhook_name: `team-${i}`, webhook_url: `https://example.com/team/${i}` });
    const project = fleet("capped-refresh", service, 1, "capped");
    await project.initStack("dev");
    await project.ok(["up", "--yes", "--skip-preview"]);
    const [held] = webhookResources(await project.exportState());
    expect(Number(held!.id)).toBeGreaterThan(80);
    service.updateRecord(Number(held!.id), {
      webhook_name: "capped-0-console",
      webhook_url: "https://example.com/console/0",
    });
    const refresh = await project.ok(["refresh", "--yes", "--skip-preview"]);
    const said = refresh.stdout + refresh.stderr;
    expect(webhookResources(await project.exportState()).map((r) => r.id)).toEqual([held!.id]);
    expect(said).toMatch(
      new RegExp(`warning: refresh could not tell whether webhook endpoint ${held!.id} still exists`),
    );
    expect(said).toMatch(/ignores the paging position/);
    // Its name no longer lists it, in a listing short enough to prove that: a replacement.
    const preview = await project.ok(["preview", "--diff"]);
    expect(preview.stdout + preview.stderr).toMatch(/no longer exists on the service under its name/);
  });

  it("pulumi import of an endpoint past the first page says the listing may be incomplete and how to narrow it", async () => {
    const service = await emulator({ profile: "page-cap" });
    for (let i = 1; i <= 80; i++)
      service.addRecord({ webhook_name: `team-${i}`, webhook_url: `https://example.com/team/${i}` });
    const seventy = service.records().find((r) => r.webhook_name === "team-70")!;
    const backend = backendFor("listing-import");
    await installPlugin(backend.home);
    const project = createProject("yaml", "listing-import", { ...backend.env, PATH: noNodeBin() });
    await project.initStack("dev", { "webhooks:baseUrl": service.url }, { "webhooks:accessToken": TOKEN });
    const result = await project.run([
      "import",
      "webhooks:index:WebhookEndpoint",
      "seventy",
      String(seventy.webhook_id),
      "--yes",
      "--protect=false",
    ]);
    const said = result.stdout + result.stderr;
    expect(result.code).not.toBe(0);
    expect(said).toMatch(/cannot prove that it does not exist/);
    expect(said).toMatch(new RegExp(`adoptWebhookId: ${seventy.webhook_id}`));
    expect(said).not.toMatch(/no webhook endpoint with webhook_id \d+ exists/);
    expect(webhookResources(await project.exportState())).toEqual([]);
  });
});

describe("a service that reads the cursor as an offset (a silent cap of 50, ids not 1..N)", () => {
  it("refresh keeps an endpoint renamed and re-pointed on the console, saying the service does not page by the record id", async () => {
    // 80 endpoints of other teams, ids 100, 103, ...; the stack's own comes after them.
    const records = othersRecords(80, 100, 3);
    const service = await scriptedService({
      records,
      onList: listByReading(records, { reading: "offset", cap: 50 }),
    });
    scripted.push(service);
    const project = fleet("offset-refresh", service, 1, "offset");
    await project.initStack("dev");
    await project.ok(["up", "--yes", "--skip-preview"]);
    const [held] = webhookResources(await project.exportState());
    const ours = records.find((r) => String(r.webhook_id) === held!.id)!;
    expect(records.indexOf(ours)).toBe(80);
    Object.assign(ours, { webhook_name: "offset-0-console", webhook_url: "https://example.com/console/0" });
    const refresh = await project.ok(["refresh", "--yes", "--skip-preview"]);
    const said = refresh.stdout + refresh.stderr;
    expect(webhookResources(await project.exportState()).map((r) => r.id)).toEqual([held!.id]);
    expect(said).toMatch(
      new RegExp(`warning: refresh could not tell whether webhook endpoint ${held!.id} still exists`),
    );
    expect(said).toMatch(/does not page by the record id/);
  });

  it("nothing secret was printed", () => {
    const all = transcript.join("\n");
    expect(all).not.toContain(TOKEN);
    for (const service of emulators)
      for (const record of service.records()) expect(all).not.toContain(record.sign_secret);
    for (const service of scripted)
      for (const record of service.records) expect(all).not.toContain(record.sign_secret);
  });
});
