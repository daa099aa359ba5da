// A service (or another team on it) may echo the CLI's access token in a name or a URL
// (docs/adopt-output.md, "The token in everything `webhooks` prints"). Every command's every output path,
// run through `main` as the bin runs it, must print the
// token nowhere, in no letter case: tables, --json, warnings, errors, reports.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main, type MainIo } from "../../src/cli/main";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { CLOCK_START, TOKEN, cliEmulator, fakePulumi } from "./helpers";
import { FakeStack, baseResources, exportText, heldResource, pendingCreate } from "./recover-fixtures";

/** Each character's UTF-8 bytes as %XX, as a URL may carry it (a URL's reader decodes it back). */
const percentEncoded = (text: string) =>
  [...Buffer.from(text, "utf8")]
    .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
    .join("");

/**
 * The token as an echo may carry it: as it is, upper-cased, split by a zero-width space, and with
 * characters percent-encoded in a URL (one letter, the underscores, or all of it, hex in either
 * case).
 */
const ECHOES = [
  TOKEN,
  TOKEN.toUpperCase(),
  `${TOKEN.slice(0, 8)}\u200b${TOKEN.slice(8)}`,
  `${TOKEN.slice(0, 8)}${percentEncoded(TOKEN.slice(8, 9))}${TOKEN.slice(9)}`,
  TOKEN.replaceAll("_", "%5f"),
  percentEncoded(TOKEN),
  // Encoded twice, and the other escapes a reader decodes: HTML character references, %u, and
  // source code's backslash escapes.
  `${TOKEN.slice(0, 4)}%25${percentEncoded(TOKEN.slice(4, 5)).slice(1)}${TOKEN.slice(5)}`,
  TOKEN.replaceAll("_", "&#95;"),
  TOKEN.replaceAll("_", "&#x5F;"),
  TOKEN.replaceAll("_", "%u005f"),
  `\\u0063${TOKEN.slice(1)}`,
  `${TOKEN.slice(0, 3)}\\x5f${TOKEN.slice(4)}`,
  `${TOKEN.slice(0, 3)}\\u{5F}${TOKEN.slice(4)}`,
];

/**
 * Whether `text` shows the token, or a piece of it long enough to matter (any case, percent-escapes read as
 * a URL's reader reads them).
 */
function showsToken(text: string): boolean {
  let decoded = text;
  for (let round = 0; round < 4; round++) {
    decoded = decoded
      .replace(/%u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
      .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
      .replace(
        /\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|\\u\{([0-9a-f]+)\}/gi,
        (_, u?: string, x?: string, braced?: string) => String.fromCodePoint(parseInt(u ?? x ?? braced!, 16)),
      );
  }
  const lower = decoded.toLowerCase();
  return (
    lower.includes(TOKEN.toLowerCase()) ||
    lower.includes(TOKEN.slice(8).toLowerCase()) ||
    lower.includes(TOKEN.slice(0, 16).toLowerCase())
  );
}

describe("the access token echoed by the service is never printed, by any command", () => {
  let emulator: Emulator;
  const dir = mkdtempSync(join(tmpdir(), "webhooks-token-echo-"));
  const env = () => ({ WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN });

  beforeAll(async () => {
    emulator = await cliEmulator({ maxNameLength: 1000 });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    for (const echo of ECHOES) {
      emulator.addRecord({ webhook_name: `team ${echo}`, webhook_url: "https://example.com/hooks/a" });
      emulator.addRecord({ webhook_name: "plain", webhook_url: `https://example.com/hooks/b?key=${echo}` });
    }
    // The token as the service's principal name and as a sign secret (a service storing it there).
    const principal = emulator.addRecord({
      webhook_name: "principal",
      webhook_url: "https://example.com/hooks/c",
    });
    emulator.updateRecord(principal.webhook_id, {
      operator_id: 9,
      operator_name: `key ${TOKEN}`,
      sign_secret: `whsec_${TOKEN}`,
    });
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(argv: string[], extra: Partial<MainIo> = {}) {
    const sink = memorySink();
    const code = await main(argv, {
      sink,
      env: env(),
      cwd: dir,
      pulumi: fakePulumi({}, { missing: true }),
      ...extra,
    });
    return { code, out: sink.out, err: sink.err };
  }

  it("list: the table, --json and --show-secrets", async () => {
    for (const argv of [
      ["list"],
      ["list", "--json"],
      ["list", "--show-secrets"],
      ["list", "--json", "--show-secrets"],
    ]) {
      const result = await run(argv);
      expect({ argv, code: result.code }).toEqual({ argv, code: 0 });
      expect(showsToken(result.out + result.err)).toBe(false);
      // The table shows the rest of the text; --json makes the whole field the secret marker.
      if (argv.includes("--json"))
        expect(JSON.stringify(JSON.parse(result.out))).toContain('{"secret":true}');
      else expect(result.out).toContain("team [REDACTED]");
    }
    const json = JSON.parse((await run(["list", "--json"])).out) as {
      endpoints: { webhookName: unknown; webhookUrl: unknown }[];
    };
    const echoing = json.endpoints.filter((e) => typeof e.webhookName !== "string");
    expect(echoing.map((e) => e.webhookName)).toEqual(ECHOES.map(() => ({ secret: true })));
  });

  it("adopt: every format and --json; warnings name each endpoint; exit 5 when nothing is declarable", async () => {
    const echoing = emulator
      .records()
      .filter((r) => r.webhook_name.startsWith("team ") || r.webhook_url.includes("key="));
    const ids = echoing.flatMap((r) => ["--id", String(r.webhook_id)]);
    for (const format of ["all", "ts", "yaml", "import"]) {
      const result = await run(["adopt", ...ids, "--format", format]);
      expect({ format, code: result.code }).toEqual({ format, code: 5 });
      expect(result.out).toBe("");
      expect(showsToken(result.err)).toBe(false);
      for (const record of echoing)
        expect(result.err).toMatch(
          new RegExp(
            `endpoint ${record.webhook_id} gets no .* declaration: its (name|URL) holds the access token`,
          ),
        );
    }
    const json = await run(["adopt", ...ids, "--id", "1", "--json"]);
    expect(json.code).toBe(0);
    expect(showsToken(json.out + json.err)).toBe(false);
    // By name: the filter the person typed is theirs, and it is not echoed either.
    const byName = await run(["adopt", "--name", `team ${TOKEN}`]);
    expect(showsToken(byName.out + byName.err)).toBe(false);
    const missing = await run(["adopt", "--name", `nothing ${TOKEN}`]);
    expect(missing.code).toBe(2);
    expect(showsToken(missing.err)).toBe(false);
  });

  it("orphans: the table and --json", async () => {
    const stateFile = join(dir, "stack.json");
    writeFileSync(stateFile, exportText([...baseResources(), heldResource("orders", 1, 1001)], []));
    for (const argv of [
      ["orphans", "--state-file", stateFile],
      ["orphans", "--state-file", stateFile, "--json"],
    ]) {
      const result = await run(argv);
      expect({ argv, code: result.code }).toEqual({ argv, code: 0 });
      expect(showsToken(result.out + result.err)).toBe(false);
      expect(result.out).toContain("[REDACTED]");
    }
  });

  it("errors: a message quoting text that holds the token, split by a zero-width space, does not print it", async () => {
    // A state file that does not exist, named (by mistake, or by a script) after the token.
    const result = await run([
      "orphans",
      "--state-file",
      join(dir, `${TOKEN.slice(0, 8)}\u200b${TOKEN.slice(8).toUpperCase()}.json`),
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/--state-file .*\[REDACTED\]/);
    expect(showsToken(result.out + result.err)).toBe(false);
  });

  it("recover: the report and --json, when the stack declared what the service now echoes", async () => {
    const name = `team ${TOKEN}`;
    const url = "https://example.com/hooks/a";
    // The stack created an endpoint before on this service (its provenance says so): its principal is known.
    const earlier = heldResource("earlier", 1, 1001);
    const created = {
      ...earlier,
      outputs: {
        ...earlier.outputs,
        provenance: { how: "created", service: emulator.url, stack: "shop/dev" },
      },
    };
    const stack = new FakeStack(
      exportText(
        [...baseResources(), created],
        [pendingCreate("hook", { inputs: { webhookName: name, webhookUrl: url } })],
      ),
    );
    try {
      const since = new Date(CLOCK_START - 3_600_000).toISOString();
      for (const argv of [
        ["recover", "--dry-run", "--since", since],
        ["recover", "--dry-run", "--json", "--since", since],
      ]) {
        const result = await run(argv, { pulumi: stack.pulumi(), cwd: stack.project });
        // One endpoint has exactly that name and URL, created by the stack's principal: it would be recorded.
        expect({ argv, code: result.code }).toEqual({ argv, code: 0 });
        if (argv.includes("--json"))
          expect(
            (JSON.parse(result.out) as { recorded: { webhookName: unknown }[] }).recorded.map(
              (r) => r.webhookName,
            ),
          ).toEqual([{ secret: true }]);
        else {
          expect(result.out).toMatch(/Recorded in state \(dry run: would be\)/);
          expect(result.out).toContain("team [REDACTED]");
        }
        expect(showsToken(result.out + result.err)).toBe(false);
      }
    } finally {
      stack.cleanup();
    }
  });
});
