// The options schema: defaults, messages that name the option, profiles checked by it, and
// options handed out as copies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_OPTIONS,
  EMULATOR_PROFILES,
  EmulatorConfigError,
  FAULT_KINDS,
  startEmulator,
} from "../../src/emulator/index";
import { TOKEN, admin, create, emulators, hook } from "./helpers";

const start = emulators();

describe("options schema", () => {
  it("resolves {} to DEFAULT_OPTIONS", async () => {
    const emulator = await start();
    const { adminToken: _adminToken, ...effective } = emulator.options();
    expect(effective).toEqual({ ...DEFAULT_OPTIONS, accessToken: "<redacted>" });
    expect(DEFAULT_OPTIONS).toMatchObject({
      paging: "cursor",
      defaultPageSize: 20,
      maxPageSize: 100,
      rewrite: { name: "none", url: "none" },
      principals: [],
      requestLogLimit: 10000,
    });
    expect(Object.isFrozen(DEFAULT_OPTIONS.creator)).toBe(true);
  });

  it.each([
    [{ faults: { list: { rate: 2 } } }, "options.faults.list.rate must be a number from 0 to 1"],
    [{ faults: { delete: { rate: 0 } } }, "options.faults.delete is not a route (list, create)"],
    [{ faults: { list: { rate: 1, slow: 5 } } }, "options.faults.list.slow is not a fault option"],
    [
      { faults: { list: { rate: 1, kinds: { gremlins: 1 } } } },
      "options.faults.list.kinds.gremlins is not a fault kind",
    ],
    [
      { faults: { list: { rate: 1, kinds: { latency: 0 } } } },
      "options.faults.list.kinds must give at least one kind a positive weight",
    ],
    [
      { requiredListFields: ["cursor", "page"] },
      /options\.requiredListFields\[1\] must be one of "cursor", "limit"/,
    ],
    [{ creator: { id: -1, name: "x" } }, /options\.creator\.id must be an integer from 0/],
    [{ uniqueNames: "yes" }, "options.uniqueNames must be a boolean"],
    [{ now: 5 }, "options.now must be a function"],
    [{ port: 70000 }, "options.port must be an integer from 0 to 65535"],
  ])("refuses %j naming the option", async (options, message) => {
    const attempt = startEmulator(options as object);
    await expect(attempt).rejects.toBeInstanceOf(EmulatorConfigError);
    await expect(attempt).rejects.toThrow(message);
  });

  it("reports every problem at once", async () => {
    await expect(startEmulator({ paging: "x", pagin: 1 } as object)).rejects.toThrow(
      /options\.paging must be one of .*; options\.pagin is not an emulator option/,
    );
  });

  it("keeps a custom clock", async () => {
    const emulator = await start({ now: () => 1234 });
    expect((await create(emulator, hook(1))).json.data.create_time).toBe(1234);
    emulator.configure({ now: () => 5678 });
    expect(emulator.addRecord(hook(2)).create_time).toBe(5678);
  });

  it("checks every profile with the schema", async () => {
    for (const [name, profile] of Object.entries(EMULATOR_PROFILES)) {
      const emulator = await start({ ...profile, profile: name });
      expect(emulator.options()).toMatchObject(JSON.parse(JSON.stringify(profile)));
    }
    await expect(startEmulator({ profile: "constructor" })).rejects.toThrow(/unknown profile "constructor"/);
  });

  it("is not changed through objects passed in", async () => {
    const options: {
      accessToken: string;
      requiredListFields: ("cursor" | "limit")[];
      rewrite: { name: "trim" | "lowercase" };
    } = {
      accessToken: TOKEN,
      requiredListFields: ["cursor"],
      rewrite: { name: "trim" },
    };
    const emulator = await startEmulator(options);
    options.requiredListFields.push("limit");
    options.rewrite.name = "lowercase";
    expect(emulator.options()).toMatchObject({
      requiredListFields: ["cursor"],
      rewrite: { name: "trim", url: "none" },
    });
    await emulator.close();
  });

  it("changes at run time through the admin route, profile first and explicit options over it", async () => {
    const emulator = await start();
    const reply = await admin(emulator, "config", "POST", {
      profile: "rewriting",
      rewrite: { url: "lowercase" },
    });
    expect(reply.json.rewrite).toEqual({ name: "none", url: "lowercase" });
    expect((await admin(emulator, "config", "POST", { adminToken: "" })).json.error).toMatch(
      /configure\.adminToken must be a non-empty string/,
    );
  });
});

describe("docs/emulator.md names what the emulator can play", () => {
  const page = readFileSync(join(__dirname, "../../docs/emulator.md"), "utf8");
  it("every profile of EMULATOR_PROFILES", () => {
    for (const name of Object.keys(EMULATOR_PROFILES)) expect(page, name).toContain(`\`${name}\``);
  });
  it("every fault kind", () => {
    for (const kind of FAULT_KINDS) expect(page, kind).toContain(`\`${kind}\``);
  });
});
