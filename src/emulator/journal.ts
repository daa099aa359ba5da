// What the emulator saw: the request log (bounded, oldest dropped first) and the counters.
import type http from "node:http";
import { FAULT_KINDS, type ApiRoute, type FaultKind } from "./options";
import type { EmulatorCounters, RequestLogEntry } from "./types";

export class Journal {
  // A window over the array: dropping the oldest entry is O(1), compaction happens rarely.
  private log: RequestLogEntry[] = [];
  private head = 0;
  private seq = 0;
  private counts: EmulatorCounters = emptyCounters();

  constructor(private limit: number) {}

  /** Logs and counts a request as it arrives; the returned entry is filled in as it is answered. */
  begin(
    req: http.IncomingMessage,
    path: string,
    route: ApiRoute | "other",
    traceId: string,
    time: number,
  ): RequestLogEntry {
    this.seq += 1;
    this.counts[route] += 1;
    this.counts.total += 1;
    // Only whether a credential was sent is kept: the log is served to anyone with admin access.
    const entry: RequestLogEntry = {
      seq: this.seq,
      time,
      method: req.method ?? "",
      path,
      route,
      status: 0,
      body: null,
      authorization: req.headers.authorization === undefined ? "<missing>" : "<redacted>",
      trace_id: traceId,
    };
    this.log.push(entry);
    this.trim();
    return entry;
  }

  /** Records the fault on the entry; returns how many faults of this kind there have been, this one included. */
  countFault(entry: RequestLogEntry, fault: FaultKind): number {
    entry.fault = fault;
    this.counts.faults[fault] += 1;
    return this.counts.faults[fault];
  }

  countCreated(): void {
    this.counts.created += 1;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.trim();
  }

  entries(): RequestLogEntry[] {
    return this.log.slice(this.head).map((entry) => structuredClone(entry));
  }

  counters(): EmulatorCounters {
    return structuredClone(this.counts);
  }

  /** Clears log and counters; sequence numbers keep growing. */
  reset(): void {
    this.log = [];
    this.head = 0;
    this.counts = emptyCounters();
  }

  private trim(): void {
    const excess = this.log.length - this.head - this.limit;
    if (excess > 0) this.head += excess;
    if (this.head > 1024 && this.head * 2 > this.log.length) {
      this.log = this.log.slice(this.head);
      this.head = 0;
    }
  }
}

function emptyCounters(): EmulatorCounters {
  const faults = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  return { list: 0, create: 0, other: 0, total: 0, faults, created: 0 };
}
