import { sameEndpoint, type WebhookEndpointRecord } from "../../client";
import { usageError } from "../exit";
import type { PendingCreate } from "../stack/deployment";

/**
 * Matching the pending creates of a killed `pulumi up` to endpoints on the service, written so that
 * it can be wrong only towards "not found" (the pending create is cleared; the next `pulumi up`
 * then refuses to create a second endpoint with that name and URL, naming it) and never towards
 * taking an endpoint that is not the one the killed run created. A candidate must:
 * - have exactly the declared name and URL (`sameEndpoint`: up to the forms a service may store);
 * - have been created inside the run's window: not before the interrupted update started (less the
 *   clock skew the client allows between us and the service);
 * - be held by no resource of the stack's state;
 * - have been created by the stack's principal on that service (the creators of the endpoints the
 *   stack created itself there, as their recorded provenance says: adopted, imported and picked
 *   endpoints, and those of earlier releases that record no provenance, teach nothing). An endpoint
 *   another principal created is never a candidate: it is someone else's, whatever its name and URL.
 * When the state shows no principal (no endpoint the stack created on that service: a first `up`
 * killed before any create was recorded, or a stack of adopted or imported endpoints only), who created an
 * endpoint cannot be told apart from a person who created the same name and URL meanwhile, so no
 * candidate is recorded on its own: each one is a question for a person (`--pick`, or adopt), as two
 * candidates are. The service offers no way to ask which principal a token is.
 * A pending create with `adoptWebhookId` would have adopted exactly that endpoint: that one, if it
 * exists with the declared name and URL and nothing holds it (a person declared it theirs). One
 * candidate for one pending create, by the stack's known principal, is recorded; two candidates for
 * one, one candidate for two, or any candidate while the principal is unknown, is a question for a
 * person. So is a pending create none of whose candidates were listed, when no listing could prove
 * that none exists (a service that caps its pages without saying so): it is never cleared on that.
 */
export interface MatchRules {
  /** Earliest create time (ms) of a candidate: the window's start less the clock skew. */
  createdSince: number;
  /** Endpoint ids held by resources of the stack's state. */
  held: ReadonlySet<number>;
  /** The stack's principal(s); empty when the state shows none (then no candidate is recorded unasked). */
  creators: ReadonlySet<number>;
  /** Choices a person made (`--pick <resource>=<id>`), by resource name or URN. */
  picks: ReadonlyMap<string, number>;
  /** Why the listing of the whole service may be incomplete; undefined when it proved itself complete. */
  incomplete?: string | undefined;
  /** Pending creates (by URN) for which no listing proved itself complete, with why. */
  unproven?: ReadonlyMap<string, string>;
}

/** How a recorded endpoint came to the stack: the provenance recover writes for it. */
export type RecordedHow = "created" | "adopted" | "picked";

export type Outcome =
  | {
      kind: "record";
      pending: PendingCreate;
      record: WebhookEndpointRecord;
      how: RecordedHow;
      reason: string;
    }
  | { kind: "clear"; pending: PendingCreate; reason: string }
  | { kind: "ambiguous"; pending: PendingCreate; candidates: WebhookEndpointRecord[]; reason: string };

export function matchPendingCreates(
  pending: readonly PendingCreate[],
  records: readonly WebhookEndpointRecord[],
  rules: MatchRules,
): Outcome[] {
  const byId = new Map(records.map((record) => [record.webhookId, record]));
  // One creator: the stack's principal. None: unknown. More than one: the stack's own records
  // disagree (a service that answered a create with another principal's endpoint before the
  // principal was known), so which one is the stack's cannot be told either.
  const principal: Principal = {
    known: rules.creators.size === 1,
    disagreeing: rules.creators.size > 1 ? [...rules.creators].sort((a, b) => a - b).join(", ") : undefined,
  };
  const found = pending.map((p) => candidatesOf(p, byId, records, rules, principal.known));
  // One endpoint cannot be two resources.
  const claims = new Map<number, number>();
  for (const entry of found)
    for (const c of entry.candidates) claims.set(c.webhookId, (claims.get(c.webhookId) ?? 0) + 1);
  return found.map((entry) => verdict(entry, claims, rules, principal));
}

/** What the state shows of the stack's principal on the service. */
interface Principal {
  /** One creator: the stack's principal. */
  known: boolean;
  /** The creators, when the stack's own records name more than one. */
  disagreeing: string | undefined;
}

/** A pending create's candidates, before the candidates of all are weighed together. */
interface Found {
  pending: PendingCreate;
  candidates: WebhookEndpointRecord[];
  how: RecordedHow;
  why: string;
  reason?: string;
  /** Candidates by the name, URL and window alone: the principal could not be told. */
  unconfirmed?: boolean;
}

/** The endpoints that may be the one a pending create made: picked, adopted, or matched. */
function candidatesOf(
  p: PendingCreate,
  byId: ReadonlyMap<number, WebhookEndpointRecord>,
  records: readonly WebhookEndpointRecord[],
  rules: MatchRules,
  principalKnown: boolean,
): Found {
  const pick = rules.picks.get(p.resourceName) ?? rules.picks.get(p.urn);
  if (pick !== undefined)
    return {
      pending: p,
      candidates: [picked(p, pick, byId, rules)],
      how: "picked",
      why: "chosen with --pick",
    };
  if (p.unmatchable !== undefined)
    return {
      pending: p,
      candidates: [],
      how: "created",
      why: "",
      reason: `not looked for: ${p.unmatchable}`,
    };
  const target = { webhookName: p.webhookName!, webhookUrl: p.webhookUrl! };
  if (p.adoptWebhookId !== undefined) {
    const record = byId.get(p.adoptWebhookId);
    const usable = record !== undefined && !rules.held.has(record.webhookId) && sameEndpoint(record, target);
    return usable
      ? { pending: p, candidates: [record], how: "adopted", why: `its adoptWebhookId` }
      : {
          pending: p,
          candidates: [],
          how: "adopted",
          why: "",
          reason: `endpoint ${p.adoptWebhookId} (its adoptWebhookId) does not exist with the declared name and URL, or the state already holds it`,
        };
  }
  const inWindow = records.filter(
    (r) => !rules.held.has(r.webhookId) && r.createTime >= rules.createdSince && sameEndpoint(r, target),
  );
  if (!principalKnown)
    return { pending: p, candidates: inWindow, how: "created", why: "", unconfirmed: true };
  const candidates = inWindow.filter((r) => rules.creators.has(r.creatorId));
  const others = inWindow.filter((r) => !rules.creators.has(r.creatorId));
  const reason =
    candidates.length === 0 && others.length > 0
      ? `no endpoint with its name and URL was created in the run's window by the stack's principal (${others.map((r) => `endpoint ${r.webhookId} by creator ${r.creatorId}`).join(", ")}: someone else's, not taken); the next \`pulumi up\` refuses to create a second one and names it`
      : undefined;
  return {
    pending: p,
    candidates,
    how: "created",
    why: "the same name and URL, created in the run's window by the stack's principal",
    ...(reason !== undefined ? { reason } : {}),
  };
}

/** What recover does with a pending create, its candidates weighed against every other's. */
function verdict(
  entry: Found,
  claims: ReadonlyMap<number, number>,
  rules: MatchRules,
  principal: Principal,
): Outcome {
  const disagreeing = principal.disagreeing;
  const { pending: p, candidates } = entry;
  const unproven = rules.unproven?.get(p.urn);
  if (candidates.length === 0 && unproven !== undefined && p.unmatchable === undefined) {
    return {
      kind: "ambiguous",
      pending: p,
      candidates,
      reason: `no endpoint listed matches it, but ${unproven}, so whether its create reached the service cannot be told and it is not cleared: find the endpoint (\`webhooks list --name <its name>\`) and record it with --pick, or, if it surely never reached the service, clear it with \`pulumi refresh --clear-pending-creates\``,
    };
  }
  if (candidates.length === 0) {
    return {
      kind: "clear",
      pending: p,
      reason:
        entry.reason ??
        "no endpoint with its name and URL was created in the run's window: the create never reached the service",
    };
  }
  if (entry.unconfirmed === true) {
    const which =
      candidates.length === 1
        ? `endpoint ${candidates[0]!.webhookId} has`
        : `${candidates.length} endpoints have`;
    return {
      kind: "ambiguous",
      pending: p,
      candidates,
      reason: `${which} its name and URL and ${candidates.length === 1 ? "was" : "were"} created in the run's window, but ${
        disagreeing === undefined
          ? "the state shows no principal of the stack on that service (no endpoint the stack created there is recorded with its provenance; adopted, imported and picked ones, and those of earlier releases, do not count)"
          : `the endpoints the stack created on that service name more than one creator (${disagreeing}: one may be another principal's that the service answered a create with)`
      }, so it cannot be told whether the killed run or someone else created ${candidates.length === 1 ? "it" : "them"}`,
    };
  }
  if (candidates.length > 1) {
    return {
      kind: "ambiguous",
      pending: p,
      candidates,
      reason: `${candidates.length} endpoints with its name and URL were created in the run's window`,
    };
  }
  const only = candidates[0]!;
  if ((claims.get(only.webhookId) ?? 0) > 1) {
    return {
      kind: "ambiguous",
      pending: p,
      candidates,
      reason: `endpoint ${only.webhookId} matches more than one pending create (resources declaring the same name and URL)`,
    };
  }
  return { kind: "record", pending: p, record: only, how: entry.how, reason: entry.why };
}

function picked(
  p: PendingCreate,
  id: number,
  byId: ReadonlyMap<number, WebhookEndpointRecord>,
  rules: MatchRules,
): WebhookEndpointRecord {
  const record = byId.get(id);
  const label = `--pick ${p.resourceName}=${id}`;
  if (record === undefined && rules.incomplete !== undefined)
    throw usageError(
      `${label}: endpoint ${id} is not among the endpoints listed (of the service, and of the resource's name), and ${rules.incomplete}: check the id with \`webhooks list --name <its name>\``,
    );
  if (record === undefined)
    throw usageError(`${label}: no endpoint with that webhook_id exists on the service`);
  if (rules.held.has(id))
    throw usageError(`${label}: endpoint ${id} is already held by a resource of this stack`);
  if (
    p.webhookName !== undefined &&
    p.webhookUrl !== undefined &&
    !sameEndpoint(record, { webhookName: p.webhookName, webhookUrl: p.webhookUrl })
  ) {
    throw usageError(`${label}: endpoint ${id} does not have the name and URL this resource declares`);
  }
  return record;
}

/** Parses `--pick <resource>=<id>` values. */
export function parsePicks(values: readonly string[]): Map<string, number> {
  const picks = new Map<string, number>();
  for (const value of values) {
    const at = value.lastIndexOf("=");
    const id = Number(value.slice(at + 1));
    if (at <= 0 || !/^\d+$/.test(value.slice(at + 1)) || !Number.isSafeInteger(id) || id <= 0) {
      throw usageError(`--pick ${value}: expected <resource name or URN>=<webhook_id>`);
    }
    picks.set(value.slice(0, at), id);
  }
  return picks;
}
