import type { ApiRoute, FaultKind, RouteFaults } from "./types";

/** Every fault kind, in the fixed order used for weighted choice (changing it changes seeded runs). */
export const FAULT_KINDS: readonly FaultKind[] = [
  "server-error",
  "rate-limit",
  "latency",
  "reset-before",
  "drop-after-commit",
  "truncated",
  "malformed",
];

/** Faults that answer (or hang up) before the request is processed. */
export const PRE_PROCESSING_FAULTS: ReadonlySet<FaultKind> = new Set(["server-error", "rate-limit", "reset-before"]);

export const DEFAULT_SLOW_MS = 3000;
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** mulberry32: tiny, fast and good enough to make fault sequences reproducible from a seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Each route has its own stream so that, for example, the faults seen by list requests do not
// depend on how many creates were interleaved with them.
const ROUTE_SEED_SALT: Record<ApiRoute, number> = { list: 0, create: 0x9e3779b9 };

/** Picks the fault (if any) for each API request: scripted faults first, then seeded random ones. */
export class FaultPlanner {
  private streams!: Record<ApiRoute, () => number>;
  private readonly queued: Record<ApiRoute, FaultKind[]> = { list: [], create: [] };

  constructor(seed: number) {
    this.reseed(seed);
  }

  reseed(seed: number): void {
    this.streams = {
      list: mulberry32(seed ^ ROUTE_SEED_SALT.list),
      create: mulberry32(seed ^ ROUTE_SEED_SALT.create),
    };
  }

  clearQueued(): void {
    this.queued.list.length = 0;
    this.queued.create.length = 0;
  }

  inject(route: ApiRoute, kind: FaultKind, count: number): void {
    for (let i = 0; i < count; i += 1) this.queued[route].push(kind);
  }

  decide(route: ApiRoute, config: RouteFaults | undefined): FaultKind | undefined {
    // Two draws on every request, whether or not they are used, so the random sequence is a
    // function of the request count alone: injecting a fault or changing the rate does not shift
    // which later requests fail.
    const stream = this.streams[route];
    const roll = stream();
    const pick = stream();
    const scripted = this.queued[route].shift();
    if (scripted !== undefined) return scripted;
    if (config === undefined || config.rate <= 0 || roll >= config.rate) return undefined;
    return chooseKind(config.kinds, pick);
  }
}

function chooseKind(weights: RouteFaults["kinds"], pick: number): FaultKind | undefined {
  const entries = FAULT_KINDS.map((kind) => [kind, weights === undefined ? 1 : (weights[kind] ?? 0)] as const).filter(
    ([, weight]) => weight > 0,
  );
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  if (total <= 0) return undefined;
  let threshold = pick * total;
  for (const [kind, weight] of entries) {
    if (threshold < weight) return kind;
    threshold -= weight;
  }
  return entries[entries.length - 1]?.[0];
}
