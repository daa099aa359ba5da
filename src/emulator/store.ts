// The records of the emulated service, indexed by id and by stored name.
import { randomBytes } from "node:crypto";
import { StateFile } from "./persist";
import type { Creator, WebhookInput, WebhookRecord, WebhookRecordPatch } from "./types";

type Change =
  { kind: "put"; record: WebhookRecord; nextId: number } | { kind: "delete"; id: number } | { kind: "clear" };

/**
 * Every mutation is written through to the state file (when there is one) BEFORE memory changes,
 * so a response the client receives always describes state that survives a restart, and a failed
 * write leaves memory as it was. Without a file nothing can fail, and a change touches only the
 * records it is about.
 */
export class WebhookStore {
  // Ids only grow and records are inserted in id order, so iteration order is ascending id.
  private readonly byId = new Map<number, WebhookRecord>();
  private readonly idsByName = new Map<string, Set<number>>();
  private nextId = 1;
  private readonly file: StateFile | undefined;

  constructor(persistPath: string | undefined) {
    this.file = persistPath === undefined ? undefined : new StateFile(persistPath);
    const state = this.file?.load();
    if (state === undefined) return;
    for (const record of [...state.records].sort((a, b) => a.webhook_id - b.webhook_id)) this.index(record);
    const highest = state.records.reduce((max, record) => Math.max(max, record.webhook_id), 0);
    this.nextId = Math.max(state.next_id, highest + 1);
  }

  /** Copies of every record, ascending `webhook_id`. */
  all(): WebhookRecord[] {
    return [...this.byId.values()].map((record) => ({ ...record }));
  }

  /** Every record, ascending `webhook_id`; live objects the caller must not change. */
  scan(): Iterable<WebhookRecord> {
    return this.byId.values();
  }

  /** The records stored under exactly this name, ascending `webhook_id`; live objects. */
  named(name: string): WebhookRecord[] {
    const ids = [...(this.idsByName.get(name) ?? [])].sort((a, b) => a - b);
    return ids.map((id) => this.byId.get(id)).filter((record) => record !== undefined);
  }

  /** Whether a record other than `exceptId` is stored under this name. */
  hasName(name: string, exceptId?: number): boolean {
    const ids = this.idsByName.get(name);
    if (ids === undefined) return false;
    return exceptId === undefined || ids.size > (ids.has(exceptId) ? 1 : 0);
  }

  create(input: WebhookInput, creator: Creator, time: number): WebhookRecord {
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
    this.commit({ kind: "put", record, nextId: this.nextId + 1 });
    return { ...record };
  }

  update(id: number, patch: WebhookRecordPatch, time: number): WebhookRecord | undefined {
    const record = this.byId.get(id);
    if (record === undefined) return undefined;
    const updated = { ...record, ...patch, operate_time: time };
    this.commit({ kind: "put", record: updated, nextId: this.nextId });
    return { ...updated };
  }

  remove(id: number): boolean {
    if (!this.byId.has(id)) return false;
    this.commit({ kind: "delete", id });
    return true;
  }

  /** Drops every record but keeps the id sequence: the real service never reuses an id. */
  clear(): void {
    this.commit({ kind: "clear" });
  }

  private commit(change: Change): void {
    if (this.file !== undefined) {
      const nextId = change.kind === "put" ? change.nextId : this.nextId;
      this.file.write({ version: 1, next_id: nextId, records: this.recordsAfter(change) });
    }
    switch (change.kind) {
      case "put":
        this.unindex(change.record.webhook_id);
        this.index(change.record);
        this.nextId = change.nextId;
        return;
      case "delete":
        this.unindex(change.id);
        this.byId.delete(change.id);
        return;
      case "clear":
        this.byId.clear();
        this.idsByName.clear();
        return;
    }
  }

  // The whole state as it will be once the change is applied, without applying it.
  private recordsAfter(change: Change): WebhookRecord[] {
    switch (change.kind) {
      case "clear":
        return [];
      case "delete":
        return [...this.byId.values()].filter((record) => record.webhook_id !== change.id);
      case "put": {
        const id = change.record.webhook_id;
        if (!this.byId.has(id)) return [...this.byId.values(), change.record];
        return [...this.byId.values()].map((record) => (record.webhook_id === id ? change.record : record));
      }
    }
  }

  // Map.set on an existing id keeps its place, so an update does not disturb the id order.
  private index(record: WebhookRecord): void {
    this.byId.set(record.webhook_id, record);
    let ids = this.idsByName.get(record.webhook_name);
    if (ids === undefined) this.idsByName.set(record.webhook_name, (ids = new Set()));
    ids.add(record.webhook_id);
  }

  private unindex(id: number): void {
    const name = this.byId.get(id)?.webhook_name;
    if (name === undefined) return;
    const ids = this.idsByName.get(name);
    ids?.delete(id);
    if (ids?.size === 0) this.idsByName.delete(name);
  }
}

function newSignSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}
