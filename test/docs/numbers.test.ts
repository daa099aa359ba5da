// A figure the README or docs/ states that also lives somewhere else (package.json, a script, the
// code) is held to that source here, so the two cannot drift apart: supported versions, the size of
// the provider text stored in state, the settings and client defaults, the lookup policy's
// constants, the model test's sizes. Each check finds the figure by the phrase that states it, and
// fails when that phrase is gone too (a figure nobody checks is a figure that drifts).
import {
  MIN_NODE,
  MIN_SECRET_CHARS,
  NUMBER_SECRET_DIGITS,
  SEARCHED_CHARS,
  MAX_PASSES,
  MAX_PENDING,
  MAX_READINGS,
  SECRET_MARKER,
  unsupportedNode,
} from "../../src/text";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_DEFAULTS } from "../../src/client/options";
import { MAX_SEEN } from "../../src/core/seen-secrets";
import { FEWEST_CUT_CHARS } from "../../src/text/reading";
import { MAX_MESSAGE_BYTES, MAX_QUOTED_CHARS, MAX_TRIM_ROUNDS } from "../../src/text/redact";
import {
  BY_NAME_FIRST,
  BY_NAME_MAX_PAGES,
  PAGE_TRUST_MS,
  SCAN_FRESH_MS,
  SCAN_PAGE_ALLOWANCE,
} from "../../src/core/lookups";
import { configKey, SETTING_NAMES, SETTINGS } from "../../src/core/settings";
import { UNREAD_BODY_ALLOWANCE_BYTES } from "../../src/emulator/server";
import { builtProviderText as providerText } from "../support/provider-text";
import { LAUNCHER_NODE_FLOOR, NODE_BINARIES, PLATFORMS } from "../../scripts/release/platforms.mjs";

const REPO = join(__dirname, "..", "..");
const read = (path: string): string => readFileSync(join(REPO, path), "utf8");
/** A page's text with every run of white space as one space, so a phrase may wrap. */
const flat = (path: string): string => read(path).replace(/\s+/g, " ");
const PAGES = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** Every value the pattern's first group captures, on the given pages (all of them by default). */
function stated(pattern: RegExp, pages: string[] = PAGES): { page: string; value: string }[] {
  const found: { page: string; value: string }[] = [];
  for (const page of pages)
    for (const match of flat(page).matchAll(new RegExp(pattern.source, "g")))
      found.push({ page, value: match[1]! });
  return found;
}

/** The statements found (at least one) all give the source's value. */
function expectAllStated(pattern: RegExp, truth: string, pages?: string[]): void {
  const found = stated(pattern, pages);
  expect(found.length, `no page states ${pattern.source}`).toBeGreaterThan(0);
  for (const { page, value } of found) expect(`${page}: ${value}`).toBe(`${page}: ${truth}`);
}

/** One capture from a source file, which must be there. */
function fromSource(path: string, pattern: RegExp): string {
  const value = pattern.exec(read(path))?.[1];
  if (value === undefined)
    throw new Error(`${path} no longer matches ${pattern.source}: update this test to its new form`);
  return value;
}

describe("supported versions: stated in the docs as package.json and the scripts have them", () => {
  const manifest = JSON.parse(read("package.json")) as {
    engines: { node: string };
    dependencies: Record<string, string>;
  };

  it("the oldest Node.js: package.json engines, the README and scripts/node-env.sh agree", () => {
    const [major, minor] = /^>=(\d+)\.(\d+)\.\d+$/.exec(manifest.engines.node)!.slice(1);
    expectAllStated(/Node(?:\.js)? (\d+(?:\.\d+)*) or newer/, `${major}.${minor}`);
    expect(stated(/Node(?:\.js)? (\d+(?:\.\d+)*) or newer/, ["README.md"]).length).toBe(1);
    // The script that installs Node 24 when the system's is older must use the same floor.
    expect(fromSource("scripts/node-env.sh", /a > (\d+) \|\| \(a === \d+ && b >= \d+\)/)).toBe(major);
    expect(fromSource("scripts/node-env.sh", /a === (\d+) && b >= \d+/)).toBe(major);
    expect(fromSource("scripts/node-env.sh", /a === \d+ && b >= (\d+)/)).toBe(minor);
    // What a launcher archive asks of the node on PATH.
    expect(LAUNCHER_NODE_FLOOR).toBe(`${major}.${minor}`);
    // What the bins tell an older Node.js.
    expect(manifest.engines.node).toBe(`>=${MIN_NODE}`);
    expect(unsupportedNode("webhooks", "", "20.20.2")).toMatch(
      new RegExp(`needs Node.js ${MIN_NODE.replace(/\./g, "\\.")} or newer, and this is Node.js 20\\.20\\.2`),
    );
    expect(unsupportedNode("webhooks", "", `${major}.${Number(minor) - 1}.9`)).toBeDefined();
    expect(unsupportedNode("webhooks", "", `${major}.${minor}.0`)).toBeUndefined();
    expect(unsupportedNode("webhooks", "", `${Number(major) + 2}.0.0`)).toBeUndefined();
  });

  it("the oldest @pulumi/pulumi: the README states the dependency's caret range floor", () => {
    const range = manifest.dependencies["@pulumi/pulumi"]!;
    expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
    expectAllStated(/`@pulumi\/pulumi` (\d+\.\d+\.\d+) or newer/, range.slice(1));
  });

  it("the runtime dependencies: the README names exactly package.json's dependencies, no more, no fewer", () => {
    const sentence = /Runtime dependencies: (.+?)\.(?= [A-Z])/.exec(flat("README.md"))?.[1];
    expect(sentence, "the README has no sentence 'Runtime dependencies: ...'").toBeDefined();
    const named = [...sentence!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    expect(named.sort()).toEqual(Object.keys(manifest.dependencies).sort());
  });

  it("the plugin archives: docs/native-plugin.md's table has each platform once, made from the pinned Node.js binary, or a launcher", () => {
    const rows = new Map<string, string[]>();
    for (const line of read("docs/native-plugin.md").split("\n")) {
      const cells = line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim());
      if ((PLATFORMS as readonly string[]).includes(cells[0] ?? "")) {
        expect(rows.has(cells[0]!), `${cells[0]} twice`).toBe(false);
        rows.set(cells[0]!, cells.slice(1));
      }
    }
    expect([...rows.keys()]).toEqual([...PLATFORMS]);
    for (const platform of PLATFORMS) {
      const [holds, madeFrom, needs] = rows.get(platform)!;
      const pin = NODE_BINARIES.binaries[platform];
      if (pin === undefined) {
        expect(holds).toMatch(/^a launcher/);
        expect(needs).toBe(`Node.js ${LAUNCHER_NODE_FLOOR}+ on \`PATH\``);
      } else {
        expect(holds).toContain("a single executable");
        expect(madeFrom).toBe(`\`${pin.package}\` ${NODE_BINARIES.version}`);
        expect(needs).toBe("nothing");
      }
    }
    expectAllStated(/single executable \(Node\.js (\d+\.\d+\.\d+)\)/, NODE_BINARIES.version, [
      "docs/native-plugin.md",
    ]);
  });

  it("the Pulumi CLI and YAML language host the scripts build", () => {
    expectAllStated(
      /Pulumi CLI v(\d+\.\d+\.\d+)/,
      fromSource("scripts/engine.sh", /^_pwe_engine_default_version=(\S+)$/m),
    );
    expectAllStated(
      /`pulumi-language-yaml` v(\d+\.\d+\.\d+)/,
      fromSource("scripts/engine-yaml.sh", /^_pwe_yaml_default_version=(\S+)$/m),
    );
  });

  it("the TypeScript versions to pin: the ones the packed package is type-checked with", () => {
    const tested = fromSource("test/types/package.test.ts", /const TYPESCRIPT_VERSIONS = \[([^\]]*)\]/).match(
      /\d+\.\d+/g,
    )!;
    const pins = [
      ...flat("README.md").matchAll(/[Pp]in `typescript` to (\d+\.\d+)\.x or (\d+\.\d+)\.x/g),
      ...flat("docs/dynamic-resource.md").matchAll(/[Pp]in `typescript` to (\d+\.\d+)\.x or (\d+\.\d+)\.x/g),
    ];
    expect(pins.length).toBe(2);
    for (const pin of pins) expect([pin[1], pin[2]].sort()).toEqual([...tested].sort());
  });

  it("the Go SDK's go directive", () => {
    expectAllStated(/`go\.mod` asks for Go (\d+(?:\.\d+)*)/, fromSource("sdk/go/go.mod", /^go (\S+)$/m));
  });
});

describe("the provider text stored in state", () => {
  it("is the size the docs give: the text without the install path and stack it embeds, within 0.05 KB", () => {
    const found = stated(/shim of about (\d+(?:\.\d+)?) KB plus the install path/);
    expect(found.length).toBe(1);
    const packageDir = "/home/ci/project/node_modules/pulumi-webhook-endpoints";
    const stack = "payments/production";
    const text = providerText(packageDir, stack);
    const embedded = [
      JSON.stringify(resolve(packageDir, "dist", "dynamic", "provider.js")),
      JSON.stringify(stack),
    ];
    for (const value of embedded) expect(text).toContain(value);
    const withoutPath = Buffer.byteLength(text) - Buffer.byteLength(embedded.join(""));
    expect(Math.abs(withoutPath / 1000 - Number(found[0]!.value))).toBeLessThanOrEqual(0.05);
  });
});

describe("defaults: the settings and client tables hold the code's values", () => {
  /** The cells of each table row whose first cell is a code span, by that name. */
  function tableRows(page: string): Map<string, string[]> {
    const rows = new Map<string, string[]>();
    for (const line of read(page).split("\n")) {
      const cells = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim());
      const name = /^`([A-Za-z]+)`$/.exec(cells[0] ?? "")?.[1];
      if (name !== undefined) rows.set(name, cells.slice(1));
    }
    return rows;
  }
  const bare = (cell: string): string => cell.replace(/`/g, "");

  it("docs/configuration.md: one row per setting of src/core/settings-table.ts, with its config key, environment variable and default", () => {
    const rows = tableRows("docs/configuration.md");
    const documented = SETTING_NAMES.filter((name) => rows.has(name));
    expect(documented).toEqual(SETTING_NAMES);
    for (const name of SETTING_NAMES) {
      const [key, env, fallback] = rows.get(name)!.map(bare);
      expect(key, name).toBe(configKey(name));
      expect(env, name).toBe(SETTINGS[name].env);
      const expected =
        name === "baseUrl" || name === "accessToken"
          ? "required"
          : name === "principalId"
            ? "none"
            : String(CLIENT_DEFAULTS[name]);
      expect(fallback, name).toBe(expected);
    }
  });

  it("docs/client.md: every default of CLIENT_DEFAULTS in the options table", () => {
    const rows = tableRows("docs/client.md");
    for (const [name, value] of Object.entries(CLIENT_DEFAULTS)) {
      const cell = rows.get(name)?.[0];
      expect(cell, `no row for ${name}`).toBeDefined();
      const written = bare(cell!).replace(/ \(.*\)$/, "");
      expect(written, name).toBe(typeof value === "string" ? JSON.stringify(value) : String(value));
    }
  });

  it("how long a create's answer is waited for: createTimeoutMs", () => {
    expectAllStated(/up to (\d+) s\s+\(`createTimeoutMs`/, String(CLIENT_DEFAULTS.createTimeoutMs / 1000));
  });
});

describe("the lookup policy's constants, as docs/lifecycle.md states them", () => {
  const page = ["docs/lifecycle.md"];
  it("lookups by name before the scans start, the scans' allowance and the bound it gives", () => {
    expectAllStated(/The first (\d+) lookups of a command go by name/, String(BY_NAME_FIRST), page);
    expectAllStated(/every lookup after the first (\d+)\./, String(BY_NAME_FIRST), page);
    expectAllStated(
      /as long as its pages stay within (\d+) plus the number of lookups/,
      String(SCAN_PAGE_ALLOWANCE),
      page,
    );
    expectAllStated(
      /at most one per endpoint plus (\d+) \(twice the scans' starting allowance/,
      String(2 * SCAN_PAGE_ALLOWANCE),
      page,
    );
  });

  it("how long a scan page and a complete scan are trusted, and when a filter does not narrow", () => {
    expectAllStated(/within (\d+) s of the page's arrival/, String(PAGE_TRUST_MS / 1000), page);
    expectAllStated(/per (\d+) s/, String(SCAN_FRESH_MS / 1000), page);
    expect(stated(/per (\d+) s/, page).length).toBe(2);
    expectAllStated(/spans more than (\d+) pages without the id/, String(BY_NAME_MAX_PAGES), page);
  });
});

describe("the model-based concurrency test's sizes, as docs/reliability.md states them", () => {
  it("CI's and the soak's schedules and steps", () => {
    const sizes =
      /`npm test` runs schedules of (\d+) steps for (\d+) s, .*?`npm run test:deep` runs (\d+) of them; `npm run soak:model` runs ([\d,]+) of (\d+)/.exec(
        flat("docs/reliability.md"),
      );
    expect(sizes).not.toBeNull();
    const [ciSteps, ciBudget, deepSchedules, soakSchedules, soakSteps] = sizes!
      .slice(1)
      .map((value) => value.replace(/,/g, ""));
    const plan = "test/e2e/model-plan.ts";
    expect(ciSteps).toBe(fromSource(plan, /DEFAULTS = \{ steps: (\d+),/));
    expect(ciBudget).toBe(fromSource(plan, /ciBudgetS: (\d+),/));
    expect(deepSchedules).toBe(fromSource(plan, /count: (\d+) \}/));
    expect(soakSchedules).toBe(
      fromSource("scripts/soak-model.sh", /PWE_TIER=deep MODEL_SCHEDULES="\$\{MODEL_SCHEDULES:-(\d+)\}"/),
    );
    expect(soakSteps).toBe(fromSource("scripts/soak-model.sh", /\$\{MODEL_STEPS:-(\d+)\}/));
  });
});

describe("the emulator's bound before authentication, as docs/emulator.md states it", () => {
  it("how much of an unread body is dropped before the connection is closed", () => {
    expectAllStated(
      /dropped as it arrives, and past (\d+) MiB the connection is closed/,
      String(UNREAD_BODY_ALLOWANCE_BYTES / (1024 * 1024)),
      ["docs/emulator.md"],
    );
  });
});

describe("the CLI's text policy, as docs/operator-cli.md states it", () => {
  const page = ["docs/operator-cli.md"];
  it("the shortest secret looked for inside text", () => {
    expectAllStated(
      /Only secrets of at least (\d+) characters are looked for inside text/,
      String(MIN_SECRET_CHARS),
      page,
    );
  });

  it("the most characters of a secret searched for (docs/client.md)", () => {
    expectAllStated(/A secret is looked for by its first (\d+) characters/, String(SEARCHED_CHARS), [
      "docs/client.md",
    ]);
  });

  it("the bounds of the search a service could make costly (docs/client.md)", () => {
    expectAllStated(/matches one secret in more than (\d+)\s+overlapping ways/, String(MAX_PENDING), [
      "docs/client.md",
    ]);
    expectAllStated(/a text of more than (\d+) readings/, String(MAX_READINGS), ["docs/client.md"]);
    expectAllStated(/nested more than (\d+) layers deep/, String(MAX_PASSES), ["docs/client.md"]);
    expectAllStated(/rest lies past what was read \((\d+) or more, or half/, String(FEWEST_CUT_CHARS), [
      "docs/client.md",
    ]);
    expectAllStated(/one more such start after (\d+) rounds/, String(MAX_TRIM_ROUNDS), ["docs/client.md"]);
    expectAllStated(/capped at (\d+) bytes between its quotes/, String(MAX_QUOTED_CHARS), ["docs/client.md"]);
    expectAllStated(/every error message at ([\d,]+) bytes/, MAX_MESSAGE_BYTES.toLocaleString("en-US"), [
      "docs/client.md",
    ]);
    expectAllStated(/remembers\s+at most (\d+) such values/, String(MAX_SEEN), ["docs/reliability.md"]);
  });

  it("the fewest digits of a numeric secret looked for inside longer numbers (the CLI's and the client's rule)", () => {
    expectAllStated(
      /A secret of fewer than (\d+) digits is looked for only where it stands/,
      String(NUMBER_SECRET_DIGITS),
      page,
    );
    expectAllStated(
      /a token of (\d+) digits or more inside a longer number too/,
      String(NUMBER_SECRET_DIGITS),
      ["docs/client.md"],
    );
  });

  it("the secret marker of --json, in the example the page gives", () => {
    const example = /## Secrets in what `webhooks` prints[\s\S]*?```json\n(.*)\n\s*```/.exec(
      read("docs/operator-cli.md"),
    )?.[1];
    expect(example, "the page's --json example").toBeDefined();
    const parsed = JSON.parse(example!) as Record<string, unknown>;
    expect(parsed.webhookUrl).toEqual(SECRET_MARKER);
    expect(flat("docs/operator-cli.md")).toContain(`\`${JSON.stringify(SECRET_MARKER).replace(":", ": ")}\``);
  });
});

describe("docs/performance.md: the benchmark's targets as bench/run.mjs has them, every figure from a kept run", () => {
  const page = "docs/performance.md";

  it("the CPU and peak RSS targets, and the sizes they are judged at, are bench/run.mjs's TARGET", () => {
    // bench/run.mjs runs the benchmark when imported: its TARGET is read from the text.
    const cpu = Number(fromSource("bench/run.mjs", /\bcpuVsLean: ([\d.]+),/));
    const rss = Number(fromSource("bench/run.mjs", /\brssVsLean: ([\d.]+),/));
    const sizes = fromSource("bench/run.mjs", /\bleanJudgedSizes: \[([\d, ]+)\]/)
      .split(",")
      .map((s) => Number(s.trim()));
    const found =
      /CPU of all processes at most ([\d.]+)× the lean floor's, and the provider host's peak RSS at most ([\d.]+)× the lean floor's, at N = ([\d,]+) and N = ([\d,]+)/.exec(
        flat(page),
      );
    expect(found, "the page states the targets in one sentence").not.toBeNull();
    const [, statedCpu, statedRss, ...statedSizes] = found!;
    expect([Number(statedCpu), Number(statedRss)]).toEqual([cpu, rss]);
    expect(statedSizes.map((s) => Number(s.replace(/,/g, "")))).toEqual(sizes);
  });

  it("every decimal figure on the page is in a results file under bench/results/ that the page links", () => {
    const text = read(page);
    const linked = [...text.matchAll(/\]\(\.\.\/bench\/results\/([^)#\s]+\.md)\)/g)].map((m) => m[1]!);
    expect(linked.length, "the page links the runs it cites").toBeGreaterThan(0);
    // Thousands separators are the page's writing: compared without them.
    const plain = (s: string): string => s.replace(/(\d),(?=\d{3}\b)/g, "$1");
    const figures = (s: string): string[] =>
      [...plain(s).matchAll(/(?<![\w.-])\d+\.\d+(?:\.\d+)*(?![\w.])/g)].map((m) => m[0]);
    const kept = new Set(linked.flatMap((file) => figures(read(`bench/results/${file}`))));
    // The links' own names (dates, commits) are not figures.
    const prose = text.replace(/\]\([^)]*\)/g, "]");
    const missing = [...new Set(figures(prose))].filter((figure) => !kept.has(figure));
    expect(missing, "figures on the page that no linked results file holds").toEqual([]);
  });
});
