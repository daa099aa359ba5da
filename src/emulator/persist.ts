// The state file behind `persistPath`. It holds every sign_secret, so it is private to its owner
// (mode 0600, in a directory created 0700) and rewritten atomically: a crash mid-write leaves the
// previous file, never half a file.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { WebhookRecord } from "./types";

export interface PersistedState {
  version: 1;
  next_id: number;
  records: WebhookRecord[];
}

const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;

export class StateFile {
  constructor(readonly path: string) {}

  /** The saved state; undefined when the file does not exist. Throws when it exists but is not usable. */
  load(): PersistedState | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    // A file we cannot read back is refused rather than overwritten: it may be someone's test data.
    return parseState(text, this.path);
  }

  write(state: PersistedState): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: DIRECTORY_MODE });
    // The temporary file is created 0600 (exclusively, so never someone else's file), and rename
    // keeps that mode: the secrets are never readable by others, not even for a moment.
    const temp = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      writeFileSync(temp, serialize(state), { mode: FILE_MODE, flag: "wx" });
      renameSync(temp, this.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}

// One record per line: readable, diffable, and far smaller than indented JSON at scale.
function serialize(state: PersistedState): string {
  const records = state.records.map((record) => JSON.stringify(record)).join(",\n");
  return `{"version":${state.version},"next_id":${state.next_id},"records":[${records === "" ? "" : `\n${records}\n`}]}\n`;
}

function parseState(text: string, path: string): PersistedState {
  const fail = (why: string): never => {
    throw new Error(`emulator state file ${path} is not usable: ${why}`);
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail("not JSON");
  }
  if (typeof value !== "object" || value === null) return fail("not an object");
  const state = value as Partial<Record<keyof PersistedState, unknown>>;
  if (state.version !== 1) fail("unknown version");
  if (typeof state.next_id !== "number" || !Number.isInteger(state.next_id))
    fail("next_id is not an integer");
  if (!Array.isArray(state.records)) return fail("records is not an array");
  const numberFields = ["webhook_id", "creator_id", "create_time", "operator_id", "operate_time"] as const;
  const stringFields = [
    "webhook_name",
    "webhook_url",
    "sign_secret",
    "creator_name",
    "operator_name",
  ] as const;
  for (const [index, record] of (state.records as unknown[]).entries()) {
    if (typeof record !== "object" || record === null) fail(`records[${index}] is not an object`);
    const fields = record as Record<string, unknown>;
    for (const field of numberFields) {
      if (typeof fields[field] !== "number") fail(`records[${index}].${field} is not a number`);
    }
    for (const field of stringFields) {
      if (typeof fields[field] !== "string") fail(`records[${index}].${field} is not a string`);
    }
  }
  return value as PersistedState;
}
