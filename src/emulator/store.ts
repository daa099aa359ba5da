import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Creator, WebhookInput, WebhookRecord, WebhookRecordPatch } from "./types";

interface PersistedState {
  version: 1;
  next_id: number;
  records: WebhookRecord[];
}

/**
 * The records of the emulated service. Every mutation is written through to `persistPath` before
 * it returns, so a response the client receives always describes state that survives a restart.
 */
export class WebhookStore {
  // Ids only grow and records are inserted in id order, so iteration order is ascending id.
  private readonly byId = new Map<number, WebhookRecord>();
  private nextId = 1;

  constructor(private readonly persistPath: string | undefined) {
    if (persistPath !== undefined) this.load(persistPath);
  }

  all(): WebhookRecord[] {
    return [...this.byId.values()].map((record) => ({ ...record }));
  }

  get(id: number): WebhookRecord | undefined {
    const record = this.byId.get(id);
    return record === undefined ? undefined : { ...record };
  }

  hasName(name: string): boolean {
    for (const record of this.byId.values()) if (record.webhook_name === name) return true;
    return false;
  }

  create(input: WebhookInput, creator: Creator, time: number): WebhookRecord {
    return this.commit(() => {
      const record: WebhookRecord = {
        webhook_id: this.nextId,
        webhook_name: input.webhook_name,
        webhook_url: input.webhook_url,
        sign_secret: newSignSecret(),
        creator_id: creator.id,
        creator_name: creator.name,
        create_time: time,
        operator_id: creator.id,
        operator_name: creator.name,
        operate_time: time,
      };
      this.nextId += 1;
      this.byId.set(record.webhook_id, record);
      return { ...record };
    });
  }

  update(id: number, patch: WebhookRecordPatch, time: number): WebhookRecord | undefined {
    const record = this.byId.get(id);
    if (record === undefined) return undefined;
    return this.commit(() => {
      const updated = { ...record, ...patch, operate_time: time };
      this.byId.set(id, updated);
      return { ...updated };
    });
  }

  remove(id: number): boolean {
    if (!this.byId.has(id)) return false;
    return this.commit(() => this.byId.delete(id));
  }

  /** Drops every record but keeps the id sequence: the real service never reuses an id. */
  clear(): void {
    this.commit(() => this.byId.clear());
  }

  // Applies a change and writes it through; if the write fails the change is undone, so memory
  // never holds state that a restart would lose while the client was told it succeeded.
  private commit<T>(change: () => T): T {
    const records = new Map(this.byId);
    const nextId = this.nextId;
    try {
      const result = change();
      this.persist();
      return result;
    } catch (error) {
      this.byId.clear();
      for (const [id, record] of records) this.byId.set(id, record);
      this.nextId = nextId;
      throw error;
    }
  }

  private load(path: string): void {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    // A file we cannot read back is refused rather than overwritten: it may be someone's test data.
    const state = parseState(text, path);
    for (const record of [...state.records].sort((a, b) => a.webhook_id - b.webhook_id)) {
      this.byId.set(record.webhook_id, record);
    }
    const highest = state.records.reduce((max, record) => Math.max(max, record.webhook_id), 0);
    this.nextId = Math.max(state.next_id, highest + 1);
  }

  private persist(): void {
    if (this.persistPath === undefined) return;
    const state: PersistedState = { version: 1, next_id: this.nextId, records: [...this.byId.values()] };
    mkdirSync(dirname(this.persistPath), { recursive: true });
    // Write-then-rename so a crash mid-write leaves the previous file intact, never half a file.
    const temp = `${this.persistPath}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`);
      renameSync(temp, this.persistPath);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}

function newSignSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
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
  if (typeof state.next_id !== "number" || !Number.isInteger(state.next_id)) fail("next_id is not an integer");
  if (!Array.isArray(state.records)) return fail("records is not an array");
  const numberFields = ["webhook_id", "creator_id", "create_time", "operator_id", "operate_time"] as const;
  const stringFields = ["webhook_name", "webhook_url", "sign_secret", "creator_name", "operator_name"] as const;
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
