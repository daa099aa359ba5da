// docs/operator-cli.md restates the CLI's commands and exit codes: its commands table has one row
// per registered command, naming each of that command's own flags, and its exit codes table says
// what src/cli/exit.ts says each code means (the same words `webhooks --help` prints).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands";
import { EXIT_MEANINGS } from "../../src/cli/exit";
import { MAIN_USAGE } from "../../src/cli/main";
import { SETTINGS, SETTING_NAMES, configKey } from "../../src/core/settings-table";
import { tableRows } from "./markdown";

const page = readFileSync(join(__dirname, "..", "..", "docs", "operator-cli.md"), "utf8");

describe("docs/operator-cli.md", () => {
  it("has one row per command in the commands table, naming each of its flags", () => {
    const rows = tableRows(page, "command");
    const named = rows.map((row) => /^`webhooks (\w[\w-]*)/.exec(row[0]!)?.[1]);
    expect(named).toEqual(COMMANDS.map((command) => command.name));
    for (const command of COMMANDS) {
      const synopsis = rows.find((row) => row[0]!.startsWith(`\`webhooks ${command.name}`))![0]!;
      for (const flag of Object.keys(command.options))
        expect(synopsis, `${command.name} --${flag}`).toContain(`--${flag}`);
    }
  });

  it("gives each exit code the meaning the CLI gives it", () => {
    const rows = tableRows(page, "code").map(([code, meaning]) => [Number(code), meaning]);
    expect(rows).toEqual(Object.entries(EXIT_MEANINGS).map(([code, meaning]) => [Number(code), meaning]));
  });
});

describe("webhooks --help", () => {
  it("names every setting by its config key and environment variable, and every command", () => {
    for (const name of SETTING_NAMES)
      expect(MAIN_USAGE).toMatch(new RegExp(`${configKey(name)} +${SETTINGS[name].env}\\n`));
    for (const command of COMMANDS) expect(MAIN_USAGE).toContain(`  ${command.name} `);
  });
});
