// The running emulator: its state (options, records, fault plan, journal), the in-process
// interface tests use, and the HTTP server that serves the API and the admin routes over it.
import { serveAdmin } from "./admin";
import { serveApi, type ApiState } from "./api";
import { FaultPlanner } from "./faults";
import { Journal } from "./journal";
import { createWebhook, parseCreate, parsePatch } from "./operations";
import {
  injectionSchema,
  type ApiRoute,
  type EmulatorOptions,
  type FaultKind,
  type ResolvedOptions,
} from "./options";
import { apiErrors, requireObject } from "./protocol";
import { effectiveOptions, parseWith, reconfigure, type EffectiveOptions } from "./resolve";
import { HttpServer, type BoundAddress } from "./server";
import { WebhookStore } from "./store";
import type {
  Emulator,
  EmulatorCounters,
  InjectOptions,
  RequestLogEntry,
  WebhookInput,
  WebhookRecord,
  WebhookRecordPatch,
} from "./types";

export class WebhooksEmulator implements Emulator, ApiState {
  readonly store: WebhookStore;
  readonly planner: FaultPlanner;
  readonly journal: Journal;
  private current: ResolvedOptions;
  private readonly http: HttpServer;

  constructor(options: ResolvedOptions) {
    this.current = options;
    this.store = new WebhookStore(options.persistPath);
    this.planner = new FaultPlanner(options.seed);
    this.journal = new Journal(options.requestLogLimit);
    this.http = new HttpServer({
      api: (exchange) => serveApi(this, exchange),
      admin: (exchange) => serveAdmin(this, exchange, this.current.adminToken),
      maxBodyBytes: () => this.current.maxBodyBytes,
    });
  }

  get loopbackOnly(): boolean {
    return this.http.bound.loopback;
  }

  get settings(): ResolvedOptions {
    return this.current;
  }

  get url(): string {
    return this.http.url;
  }

  get port(): number {
    return this.http.port;
  }

  get bound(): BoundAddress {
    return { ...this.http.bound };
  }

  get adminToken(): string {
    return this.current.adminToken;
  }

  listen(): Promise<void> {
    return this.http.listen(this.current.port, this.current.host);
  }

  records(): WebhookRecord[] {
    return this.store.all();
  }

  requests(): RequestLogEntry[] {
    return this.journal.entries();
  }

  counters(): EmulatorCounters {
    return this.journal.counters();
  }

  options(): EffectiveOptions {
    return effectiveOptions(this.current);
  }

  reset(): void {
    this.store.clear();
    this.journal.reset();
    this.planner.clearQueued();
    this.planner.reseed(this.current.seed);
  }

  removeRecord(id: number): boolean {
    return this.store.remove(id);
  }

  updateRecord(id: number, patch: WebhookRecordPatch): WebhookRecord | undefined {
    const checked = parsePatch(patch, this.current);
    if (
      checked.webhook_name !== undefined &&
      this.current.uniqueNames &&
      this.store.hasName(checked.webhook_name, id)
    ) {
      throw apiErrors.nameExists();
    }
    return this.store.update(id, checked, this.current.now());
  }

  addRecord(input: WebhookInput): WebhookRecord {
    const body = requireObject(input, "request body");
    return createWebhook(
      parseCreate(body, this.current),
      this.current,
      this.store,
      this.current.creator,
      this.current.now(),
    );
  }

  configure(options: Partial<EmulatorOptions>): void {
    this.current = reconfigure(this.current, options);
    if ("seed" in options) this.planner.reseed(this.current.seed);
    this.journal.setLimit(this.current.requestLogLimit);
  }

  injectNext(route: ApiRoute, kind: FaultKind, count = 1, options: InjectOptions = {}): void {
    const checked = parseWith(injectionSchema, { route, kind, count, after: options.after }, "injectNext");
    this.planner.inject(checked.route, checked.kind, checked.count, checked.after);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
