import { quoteServiceText, redact } from "../text";
import {
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  type WebhookApiError,
} from "./errors";
import { mayStillBeInFlight, sleep } from "./retry";
import { maySameEndpoint, nameLookupForms, sameEndpoint, urlLookupForms } from "./rules";
import type { CreateParams, ListingEnd, WebhookEndpointRecord } from "./types";

/**
 * Create reconciliation: what makes a create safe on an API that can never delete.
 *
 * 1. Before the create is sent, a listing by name (one per form a service may store it under)
 *    takes a snapshot of what exists
 *    ({@link takeSnapshot}). An endpoint that may be the one requested (same name and URL, up to
 *    the forms a service may rewrite) is never silently taken and never silently duplicated: the
 *    create is refused with a {@link WebhookEndpointExistsError} naming it. A listing by name that
 *    cannot prove itself complete is narrowed by URL; when neither can, nothing is sent.
 * 2. When a create's outcome is ambiguous, the endpoint it may have made is looked for by
 *    listing ({@link settleAmbiguousCreate}), and only among endpoints that did not exist before
 *    the attempt: not in the snapshot, created since the attempt began, and created by our own
 *    principal when that is known. The listing goes on for the whole settle window, because a
 *    service may still be committing our request while someone else creates the same name and
 *    URL. At the end of the window: none makes a retry safe only when a complete listing shows it
 *    and the service is done with the request (else a {@link WebhookCreateUncertainError}); more
 *    than one is a
 *    {@link WebhookCreateUncertainError} that names them; exactly one is the result only if it
 *    cannot be someone else's: the service said it processed our request (a 2xx status and a
 *    success code whose data was unusable), or it was created by our own principal (learned from this client's
 *    earlier creates). Otherwise (a 500, a timeout, a dropped connection, with our principal not
 *    known) it may be another actor's endpoint made at the same moment while ours was never
 *    created, so it is named in a {@link WebhookCreateUncertainError}, not taken.
 * 3. A create answered with an endpoint that existed before the attempt is refused
 *    ({@link refuseExistingAnswer}): a service may answer a create with the endpoint it holds.
 */

/** Every record a listing returned, and how it ended (only a complete one proves an endpoint absent). */
export interface Listed {
  records: WebhookEndpointRecord[];
  end: ListingEnd;
}

/** Lists every record for a filter, with the service's own matching (the caller re-matches). */
export type ServiceListing = (
  filter: { webhookName?: string; webhookUrl?: string; ascending?: string },
  signal: AbortSignal | undefined,
) => Promise<Listed>;

export interface CreateSnapshot {
  /** Ids the name listing returned before the create was sent. */
  ids: ReadonlySet<number>;
  /** When the attempt began, by our clock. */
  startedAt: number;
  /** Whether the listing showed an endpoint that may be the requested one (see `allowExisting`). */
  showsOne: boolean;
}

/**
 * Lists by name before creating, and by URL when the name's listing cannot prove itself complete
 * (an endpoint with this name and URL has this URL too). Throws {@link WebhookEndpointExistsError}
 * when an endpoint that may be the requested one exists, unless `allowExisting`; a
 * {@link WebhookPagingError} when neither listing can prove that none does.
 */
export async function takeSnapshot(
  listing: ServiceListing,
  params: CreateParams,
  options: { allowExisting: boolean; signal: AbortSignal | undefined; secrets: readonly string[] },
): Promise<CreateSnapshot> {
  const startedAt = Date.now();
  const byName = await listByForms(listing, params, "name", options.signal);
  const records = [...byName.records];
  if (!byName.end.complete) {
    const byUrl = await listByForms(listing, params, "url", options.signal);
    records.push(...byUrl.records);
    if (
      !byUrl.end.complete &&
      !options.allowExisting &&
      !records.some((record) => maySameEndpoint(record, params))
    ) {
      throw new WebhookPagingError(
        `create of ${quoteServiceText(params.webhookName, options.secrets)} was not sent: the service's listings by its name and by its URL may both be incomplete (${byName.end.reason}), so whether an endpoint with this name and URL already exists cannot be told, and a second one could never be deleted. Declare a name or URL that fewer endpoints share, or adopt the existing endpoint by its id`,
        { operation: "create" },
      );
    }
  }
  const existing = unique(records.filter((record) => maySameEndpoint(record, params)));
  if (existing.length > 0 && !options.allowExisting) {
    throw new WebhookEndpointExistsError(
      `an endpoint named ${quoteServiceText(params.webhookName, options.secrets)} with this URL already exists (${describeEndpoints(existing, params, options.secrets)}); nothing was created, since a second one could never be deleted`,
      { operation: "create", existingIds: existing.map((r) => r.webhookId) },
    );
  }
  return {
    ids: new Set(records.map((record) => record.webhookId)),
    startedAt,
    showsOne: existing.length > 0,
  };
}

/**
 * "id 12, created 2026-11-21T10:00:00.000Z by open-api; id 14 (stored as "Orders", ...)"; service text
 * cleaned and `secrets` redacted.
 */
export function describeEndpoints(
  records: readonly WebhookEndpointRecord[],
  declared: CreateParams,
  secrets: readonly string[],
): string {
  const shown = records.slice(0, 10).map((record) => {
    // Date holds ±8.64e15 ms; a service may send any integer up to 2^53.
    const created =
      Math.abs(record.createTime) <= 8.64e15
        ? new Date(record.createTime).toISOString()
        : "at an unknown time";
    const stored = sameEndpoint(record, declared)
      ? ""
      : ` (stored as name ${quoteServiceText(record.webhookName, secrets, 100)}, URL ${quoteServiceText(record.webhookUrl, secrets, 200)})`;
    return `id ${record.webhookId}, created ${created} by ${quoteServiceText(record.creatorName, secrets, 60)}${stored}`;
  });
  const more = records.length > shown.length ? `; and ${records.length - shown.length} more` : "";
  return `${shown.join("; ")}${more}`;
}

export interface SettleOptions {
  /** Redacted from every message (the token). */
  secrets: readonly string[];
  settleMs: number;
  clockSkewMs: number;
  /**
   * Principals known to be ours (creator ids of endpoints we created); empty when unknown. Read at the end
   * of the window.
   */
  ourCreatorIds: ReadonlySet<number>;
  /**
   * The `ascending` value for the other order than the client's, when known: a listing that cannot
   * reach past its first page in the usual order may reach the newest endpoints in the other one.
   */
  opposite?: string | undefined;
  signal: AbortSignal | undefined;
  /**
   * Whether an endpoint with this name and URL may exist beside ours (`allowDuplicate`): else a retry
   * is refused when the last round shows one that someone else created since the first listing.
   */
  allowExisting?: boolean;
  /**
   * Every record the settling's listings returned so far, page by page, a listing that then failed
   * included: what a stopped or failed settling names among them is not lost.
   */
  seen?: () => readonly WebhookEndpointRecord[];
}

/** An error's message with `secrets` redacted, for quoting inside another message. */
export function errorText(error: unknown, secrets: readonly string[]): string {
  return redact(error instanceof Error ? error.message : String(error), secrets);
}

/**
 * Whether the failed answer still says the service processed the request: a 2xx status line and
 * an envelope whose code said success, with data that could not be used. A 2xx alone says nothing
 * on a service that reports errors inside HTTP 200, nor does a body that could not be read.
 */
export function serviceProcessed(failure: WebhookApiError): boolean {
  return (
    failure instanceof WebhookInvalidResponseError &&
    failure.status !== undefined &&
    failure.status >= 200 &&
    failure.status < 300 &&
    failure.serviceCode === "200"
  );
}

/**
 * Refuses a create answer that is not a new endpoint: one the listing before the create already
 * returned, or one that is neither the requested name and URL in any stored form nor created
 * since the attempt began (beyond the clock-skew allowance); and, our principal known, one another
 * principal created (`answeredBy`). A service that answers a create with an endpoint it already
 * held (names or URLs unique on its side, an upsert), or with the one someone else made while ours
 * was in flight, would otherwise hand us someone else's endpoint and signing secret.
 */
export function refuseExistingAnswer(
  record: WebhookEndpointRecord,
  params: CreateParams,
  snapshot: CreateSnapshot,
  options: { clockSkewMs: number; secrets: readonly string[]; ourCreatorIds: ReadonlySet<number> },
): void {
  // The time test only for a record that is not even a rewritten form of the request: a service
  // whose clock runs behind ours must not make our own new endpoint look old.
  const existed =
    snapshot.ids.has(record.webhookId) ||
    (!maySameEndpoint(record, params) &&
      Number.isFinite(record.createTime) &&
      record.createTime < snapshot.startedAt - options.clockSkewMs);
  if (!existed) {
    if (options.ourCreatorIds.size > 0 && !options.ourCreatorIds.has(record.creatorId))
      throw new WebhookEndpointExistsError(
        `create of ${quoteServiceText(params.webhookName, options.secrets)} was answered with an endpoint another principal created (${describeEndpoints([record], params, options.secrets)}; creator ${record.creatorId}, not ours): a service that keeps names unique answers with the endpoint it has, which another principal may have made while this create was in flight, so it was not taken. If it is yours, adopt it (adoptWebhookId: ${record.webhookId}); otherwise declare another name or URL`,
        { operation: "create", existingIds: [record.webhookId], answeredBy: record.creatorId },
      );
    return;
  }
  throw new WebhookEndpointExistsError(
    `create of ${quoteServiceText(params.webhookName, options.secrets)} was answered with an endpoint that existed before the request was sent (${describeEndpoints([record], params, options.secrets)}): the service made no new endpoint for it (it may hold names or URLs unique and answer with the one it has), so that endpoint was not taken. If it is yours, adopt it (adoptWebhookId: ${record.webhookId}); otherwise declare another name or URL`,
    { operation: "create", existingIds: [record.webhookId] },
  );
}

/**
 * Every record the service lists for the declared name (or URL) in each form it may have stored
 * it under ({@link nameLookupForms}, {@link urlLookupForms}): a service whose filter compares its
 * stored, rewritten values exactly finds nothing by the declared form alone. One listing when
 * the declared form is the only one. Complete only when every one of them is.
 */
async function listByForms(
  listing: ServiceListing,
  params: CreateParams,
  by: "name" | "url",
  signal: AbortSignal | undefined,
  order: { ascending?: string } = {},
): Promise<Listed> {
  const records: WebhookEndpointRecord[] = [];
  let end: ListingEnd = { complete: true };
  const forms = by === "name" ? nameLookupForms(params.webhookName) : urlLookupForms(params.webhookUrl);
  for (const form of forms) {
    const listed = await listing(
      by === "name" ? { webhookName: form, ...order } : { webhookUrl: form, ...order },
      signal,
    );
    records.push(...listed.records);
    if (!listed.end.complete) end = listed.end;
  }
  // Not deduplicated here: a service may list one id twice with different fields, and the caller
  // filters every copy before it keeps one (a copy that qualifies must not hide behind one that does not).
  return { records, end };
}

/**
 * Looks for the endpoint an ambiguous create may have made. Returns it when exactly one new
 * endpoint matches; undefined when, after the settle window, none does in a complete listing and
 * the service is done with the request (a retry is then safe); throws
 * {@link WebhookCreateUncertainError} when it cannot tell.
 */
export async function settleAmbiguousCreate(
  listing: ServiceListing,
  params: CreateParams,
  snapshot: CreateSnapshot,
  failure: WebhookApiError,
  options: SettleOptions,
): Promise<WebhookEndpointRecord | undefined> {
  const deadline = Date.now() + options.settleMs;
  const notBefore = snapshot.startedAt - options.clockSkewMs;
  const unlisted = (record: WebhookEndpointRecord): boolean =>
    !snapshot.ids.has(record.webhookId) && maySameEndpoint(record, params);
  const ours = (record: WebhookEndpointRecord): boolean =>
    options.ourCreatorIds.size === 0 || options.ourCreatorIds.has(record.creatorId);
  const isNew = (record: WebhookEndpointRecord): boolean => unlisted(record) && ours(record);
  const kinds = {
    isNew,
    isOthers: (record: WebhookEndpointRecord) => unlisted(record) && !ours(record),
    notBefore,
  };
  /**
   * Every endpoint the settling's rounds showed that may be ours (`found`) or is someone else's
   * (`theirs`), the latest copy of each: nothing can delete an endpoint, so one a later listing
   * leaves out (a lagging replica) still exists.
   */
  let found: WebhookEndpointRecord[] = [];
  let theirs: WebhookEndpointRecord[] = [];
  /** What a settling stopped or failed before its end names: `found`, and any record seen since that may be it. */
  const seenCandidates = (): WebhookEndpointRecord[] =>
    unique([
      ...found,
      ...(options.seen?.() ?? []).filter((record) => isNew(record) && record.createTime >= notBefore),
    ]);
  for (let round = 0; ; round++) {
    /** Why this round's listings cannot prove that no candidate exists; undefined when one of them can. */
    let unproven: string | undefined;
    try {
      const shown = await settleRound(listing, params, options, kinds);
      found = unique([...shown.candidates, ...found]);
      theirs = unique([...shown.others, ...theirs]);
      unproven = shown.unproven;
    } catch (listError) {
      throw roundFailed(params, failure, seenCandidates(), listError, options);
    }
    const remaining = deadline - Date.now();
    if (found.length > 1 || (found.length === 1 && remaining <= 0))
      return settledOn(found, theirs, params, failure, options);
    if (remaining <= 0) {
      // Only the service's own error permits sending it again; its success never does.
      if (mayStillBeInFlight(failure) || serviceProcessed(failure) || unproven !== undefined)
        throw nothingFound(params, failure, unproven, options.secrets);
      // A retry is a create like the first: it is not sent beside an endpoint that exists now.
      if (theirs.length > 0 && options.allowExisting !== true)
        throw theirsThere(params, failure, theirs, notBefore, options.secrets);
      return undefined;
    }
    try {
      await sleep(Math.min(remaining, 200 * 2 ** round), options.signal);
    } catch (reason) {
      const named = seenCandidates();
      if (named.length > 0)
        throw settlingStopped(params, failure, named, options.secrets, {
          why: "the settling was stopped (cancelled, or the client closed)",
        });
      throw reason;
    }
  }
}

/**
 * The end of a settling that found endpoints that may be ours: exactly one is the result only if it
 * cannot be someone else's (the service said it processed our request, or our principal made it,
 * and no copy of it was listed as another principal's); otherwise they are named, not taken.
 */
function settledOn(
  found: readonly WebhookEndpointRecord[],
  theirs: readonly WebhookEndpointRecord[],
  params: CreateParams,
  failure: WebhookApiError,
  options: SettleOptions,
): WebhookEndpointRecord {
  const name = quoteServiceText(params.webhookName, options.secrets);
  if (found.length > 1) {
    throw new WebhookCreateUncertainError(
      `create of ${name} got no usable answer, and ${found.length} endpoints with that name and URL were created since the attempt began (${describeEndpoints(found, params, options.secrets)}); one of them may be ours and the others someone else's, so none was taken. Nothing will be created again for this name and URL while they exist`,
      {
        operation: "create",
        traceId: failure.traceId,
        candidateIds: found.map((r) => r.webhookId),
        cause: failure,
      },
    );
  }
  const [candidate] = found as [WebhookEndpointRecord];
  // A service that lists one id with two creators (under any name and URL) gives no answer as to
  // whose it is.
  const contested = [...theirs, ...(options.seen?.() ?? [])].some(
    (record) => record.webhookId === candidate.webhookId && record.creatorId !== candidate.creatorId,
  );
  if (!contested && (serviceProcessed(failure) || options.ourCreatorIds.has(candidate.creatorId)))
    return candidate;
  throw new WebhookCreateUncertainError(
    `create of ${name} got no usable answer (${errorText(failure, options.secrets)}), and one endpoint with that name and URL appeared since the attempt began (${describeEndpoints([candidate], params, options.secrets)}). It may be ours, or someone else's made at the same moment while ours was never created (${contested ? "the service listed it under another principal too" : "the answer did not say whether our request was processed"}), so it was not taken. Nothing will be created again for this name and URL while it exists`,
    { operation: "create", traceId: failure.traceId, candidateIds: [candidate.webhookId], cause: failure },
  );
}

/** How a settling round sorts what it lists (see {@link settleAmbiguousCreate}). */
interface RoundKinds {
  /** Not in the first listing, the endpoint requested, by our principal (or it is unknown): may be ours. */
  isNew: (record: WebhookEndpointRecord) => boolean;
  /** Not in the first listing, the endpoint requested, by another principal: someone else's. */
  isOthers: (record: WebhookEndpointRecord) => boolean;
  /** When the attempt began, less the clock-skew allowance. */
  notBefore: number;
}

/**
 * One round of the settling's listings: by name in every form; when that finds none, by URL (only
 * endpoints made since the attempt began); when neither proves itself complete, by name in the
 * other order. The candidates found, and why the round proves no absence (undefined when it does).
 */
async function settleRound(
  listing: ServiceListing,
  params: CreateParams,
  options: SettleOptions,
  { isNew, isOthers, notBefore }: RoundKinds,
): Promise<{
  candidates: WebhookEndpointRecord[];
  unproven: string | undefined;
  others: WebhookEndpointRecord[];
}> {
  const byName = await listByForms(listing, params, "name", options.signal);
  const shown = [...byName.records];
  let candidates = unique(byName.records.filter(isNew));
  let unproven = byName.end.complete ? undefined : byName.end.reason;
  if (candidates.length === 0) {
    // A service that rewrites names may not find the endpoint by the name we sent; its URL
    // may still find it. The snapshot does not cover this listing, so the creation time must
    // also fall within the attempt.
    const byUrl = await listByForms(listing, params, "url", options.signal);
    shown.push(...byUrl.records);
    candidates = unique(byUrl.records.filter((record) => isNew(record) && record.createTime >= notBefore));
    if (byUrl.end.complete) unproven = undefined;
  }
  if (candidates.length === 0 && unproven !== undefined && options.opposite !== undefined) {
    // The endpoint looked for is the newest: where the usual order stops at the first page, the
    // other order may start with it. Nothing it does not show is concluded absent.
    const newest = await listByForms(listing, params, "name", options.signal, {
      ascending: options.opposite,
    });
    shown.push(...newest.records);
    candidates = unique(newest.records.filter(isNew));
  }
  // Another principal's endpoint there, made since the first listing: a retry is not sent beside it.
  const others = unique(shown.filter(isOthers));
  return { candidates, unproven, others };
}

/**
 * A settling round's listing failed (or was stopped): the endpoints seen that may be ours are
 * named; with none, the endpoint may exist all the same.
 */
function roundFailed(
  params: CreateParams,
  failure: WebhookApiError,
  named: readonly WebhookEndpointRecord[],
  listError: unknown,
  options: SettleOptions,
): WebhookCreateUncertainError {
  if (named.length > 0)
    return settlingStopped(params, failure, named, options.secrets, {
      why:
        options.signal?.aborted === true
          ? "the settling was stopped (cancelled, or the client closed)"
          : `listing to check whether it was created failed (${errorText(listError, options.secrets)})`,
    });
  const name = quoteServiceText(params.webhookName, options.secrets);
  return new WebhookCreateUncertainError(
    `create of ${name} got no usable answer (${errorText(failure, options.secrets)}) and listing to check whether it was created also failed (${errorText(listError, options.secrets)}). The endpoint may exist: nothing will be created again for this name and URL while one exists, so list the endpoints named ${name} and adopt the one created just now`,
    { operation: "create", traceId: failure.traceId, status: failure.status, cause: failure },
  );
}

/**
 * The settling stopped (a cancel, the client closed) or its listing failed after endpoints that may
 * be ours were seen: named, so that what was seen is not lost.
 */
function settlingStopped(
  params: CreateParams,
  failure: WebhookApiError,
  found: readonly WebhookEndpointRecord[],
  secrets: readonly string[],
  { why }: { why: string },
): WebhookCreateUncertainError {
  return new WebhookCreateUncertainError(
    `create of ${quoteServiceText(params.webhookName, secrets)} got no usable answer (${errorText(failure, secrets)}), and ${why} after ${found.length === 1 ? "an endpoint" : `${found.length} endpoints`} with that name and URL appeared since the attempt began (${describeEndpoints(found, params, secrets)}); one may be ours, so none was taken. Nothing will be created again for this name and URL while one exists`,
    {
      operation: "create",
      traceId: failure.traceId,
      status: failure.status,
      candidateIds: found.map((r) => r.webhookId),
      cause: failure,
    },
  );
}

/**
 * None of ours appeared after an ambiguous create the service is done with, but an endpoint with this
 * name and URL that another principal made is there (made meanwhile, or older and missed by the
 * listing before the create): the retry is refused as the listing before a create refuses one.
 */
function theirsThere(
  params: CreateParams,
  failure: WebhookApiError,
  theirs: readonly WebhookEndpointRecord[],
  notBefore: number,
  secrets: readonly string[],
): WebhookEndpointExistsError {
  const meanwhile = theirs.every((record) => record.createTime >= notBefore);
  const what = meanwhile
    ? "meanwhile another principal created an endpoint with this name and URL"
    : "an endpoint with this name and URL that another principal created exists (the listing before the create did not show it)";
  return new WebhookEndpointExistsError(
    `create of ${quoteServiceText(params.webhookName, secrets)} got no usable answer (${errorText(failure, secrets)}) and made no endpoint, but was not sent again: ${what} (${describeEndpoints(theirs, params, secrets)}), and a second one could never be deleted. If it is yours, adopt it (adoptWebhookId); otherwise declare another name or URL`,
    { operation: "create", existingIds: theirs.map((r) => r.webhookId), cause: failure },
  );
}

/**
 * Why no endpoint found after an ambiguous create does not permit sending it again: the service
 * may still be working on the request, or the listing could not prove that none exists.
 */
function nothingFound(
  params: CreateParams,
  failure: WebhookApiError,
  unproven: string | undefined,
  secrets: readonly string[],
): WebhookCreateUncertainError {
  const name = quoteServiceText(params.webhookName, secrets);
  const why = mayStillBeInFlight(failure)
    ? `no answer came (${errorText(failure, secrets)}), so the service may still be creating it: no endpoint with that name and URL had appeared when the settle window ended`
    : serviceProcessed(failure)
      ? `was answered with success but data that could not be used (${errorText(failure, secrets)}): the service made it, and no listing showed it when the settle window ended`
      : `got no usable answer (${errorText(failure, secrets)}), and the listing that found no endpoint with that name and URL may be incomplete (${unproven ?? ""})`;
  return new WebhookCreateUncertainError(
    `create of ${name} ${why}. It was not sent again, since a second endpoint could never be deleted. List the endpoints named ${name} later: adopt the one that appears, or create again once none has`,
    { operation: "create", traceId: failure.traceId, status: failure.status, cause: failure },
  );
}

function unique(records: WebhookEndpointRecord[]): WebhookEndpointRecord[] {
  const byId = new Map<number, WebhookEndpointRecord>();
  for (const record of records) if (!byId.has(record.webhookId)) byId.set(record.webhookId, record);
  return [...byId.values()];
}
