// The two operations, independent of HTTP: they take a parsed body and either return the envelope's
// `data` or throw an ApiError. Validation happens completely before anything is stored, so a
// refused request never changes state.
import { apiErrors, requireObject } from "./protocol";
import { filterForm, storedName, storedUrl } from "./rewrite";
import type { WebhookStore } from "./store";
import type {
  Creator,
  ResolvedOptions,
  SortOrder,
  WebhookInput,
  WebhookRecord,
  WebhookRecordPatch,
} from "./types";

type Body = Record<string, unknown>;

export function listWebhooks(body: Body, options: ResolvedOptions, store: WebhookStore): Body {
  for (const field of options.requiredListFields) {
    if (!isPresent(body[field])) throw apiErrors.badRequest(`${field} is required`);
  }
  const cursor = optionalString(body, "cursor") ?? "";
  const nameFilter = filterForm("webhook_name", optionalString(body, "webhook_name") ?? "", options);
  const urlFilter = filterForm("webhook_url", optionalString(body, "webhook_url") ?? "", options);
  const limit = pageSize(body.limit, options);
  const order = sortOrder(body.ascending, options);

  // An exact name filter is answered from the name index; other filters scan the records, in
  // order, only as far as the page needs.
  const candidates =
    nameFilter !== "" && options.filterMatch === "exact" ? store.named(nameFilter) : store.scan();
  const ordered = order === "asc" ? candidates : [...candidates].reverse();
  // Keyset paging on webhook_id: records created or deleted between pages neither repeat nor
  // shift the rest, which is what a client walking all pages should be able to rely on.
  const after =
    options.paging === "none"
      ? undefined
      : options.paging === "has-more"
        ? decimalCursor(cursor)
        : opaqueCursor(cursor);
  const page: WebhookRecord[] = [];
  for (const record of ordered) {
    if (after !== undefined && (order === "asc" ? record.webhook_id <= after : record.webhook_id >= after))
      continue;
    if (
      !matches(record.webhook_name, nameFilter, options) ||
      !matches(record.webhook_url, urlFilter, options)
    )
      continue;
    // A match beyond a full page tells that more remain.
    if (page.length === limit) return continued(page, true, options);
    page.push({ ...record });
  }
  return continued(page, false, options);
}

// The page with the continuation field of the paging style; `more` implies a non-empty page.
function continued(page: WebhookRecord[], more: boolean, options: ResolvedOptions): Body {
  const last = page[page.length - 1];
  const cursor = more && last !== undefined ? encodeCursor(last.webhook_id) : "";
  switch (options.paging) {
    case "none":
      return { data: page };
    case "cursor":
      return { data: page, cursor };
    case "next-cursor":
      return { data: page, next_cursor: cursor };
    case "has-more":
      return { data: page, has_more: more };
  }
}

/** Validates a create body and returns what the service stores (rewritten per `options.rewrite`). */
export function parseCreate(body: Body, options: ResolvedOptions): WebhookInput {
  return {
    webhook_name: storedName(checkName(requiredString(body, "webhook_name"), options), options.rewrite.name),
    webhook_url: storedUrl(checkUrl(requiredString(body, "webhook_url"), options), options.rewrite.url),
  };
}

export function createWebhook(
  input: WebhookInput,
  options: ResolvedOptions,
  store: WebhookStore,
  creator: Creator,
  time: number,
): WebhookRecord {
  if (options.uniqueNames && store.hasName(input.webhook_name)) {
    // An idempotent create answers with the endpoint that has the name, whoever made it.
    const [existing] = store.named(input.webhook_name);
    if (options.takenName === "existing" && existing !== undefined) return { ...existing };
    throw apiErrors.nameExists();
  }
  return store.create(input, creator, time);
}

/** Checks a service-side patch (admin route or `updateRecord`) with the create rules for name and URL. */
export function parsePatch(value: unknown, options: ResolvedOptions): WebhookRecordPatch {
  const body = requireObject(value, "patch");
  const patch: WebhookRecordPatch = {};
  for (const key of Object.keys(body)) {
    if (!["webhook_name", "webhook_url", "sign_secret", "operator_id", "operator_name"].includes(key)) {
      throw apiErrors.badRequest(`${key} cannot be patched`);
    }
  }
  const name = optionalString(body, "webhook_name");
  if (name !== undefined) patch.webhook_name = storedName(checkName(name, options), options.rewrite.name);
  const url = optionalString(body, "webhook_url");
  if (url !== undefined) patch.webhook_url = storedUrl(checkUrl(url, options), options.rewrite.url);
  const secret = optionalString(body, "sign_secret");
  if (secret !== undefined) patch.sign_secret = secret;
  const operatorName = optionalString(body, "operator_name");
  if (operatorName !== undefined) patch.operator_name = operatorName;
  if (isPresent(body.operator_id)) {
    if (!Number.isSafeInteger(body.operator_id)) throw apiErrors.badRequest("operator_id must be an integer");
    patch.operator_id = body.operator_id as number;
  }
  return patch;
}

// null counts as absent: many clients serialise unset optional fields as null.
function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (!isPresent(value)) return undefined;
  if (typeof value !== "string") throw apiErrors.badRequest(`${field} must be a string`);
  return value;
}

function requiredString(body: Body, field: string): string {
  const value = optionalString(body, field);
  if (value === undefined) throw apiErrors.badRequest(`${field} is required`);
  return value;
}

function codePoints(value: string): number {
  return [...value].length;
}

function checkName(name: string, options: ResolvedOptions): string {
  if (name.trim() === "") throw apiErrors.badRequest("webhook_name must not be empty");
  if (codePoints(name) > options.maxNameLength) {
    throw apiErrors.badRequest(`webhook_name must be at most ${options.maxNameLength} characters`);
  }
  return name;
}

function checkUrl(url: string, options: ResolvedOptions): string {
  if (codePoints(url) > options.maxUrlLength) {
    throw apiErrors.badRequest(`webhook_url must be at most ${options.maxUrlLength} characters`);
  }
  // The WHATWG parser forgives surrounding whitespace; the service is assumed not to.
  let parsed: URL | undefined;
  try {
    parsed = url === url.trim() ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (
    parsed === undefined ||
    (parsed.protocol !== "http:" && parsed.protocol !== "https:") ||
    parsed.host === ""
  ) {
    throw apiErrors.badRequest("webhook_url must be an absolute http(s) URL");
  }
  return url;
}

function pageSize(raw: unknown, options: ResolvedOptions): number {
  const fallback = Math.min(options.defaultPageSize, options.maxPageSize);
  if (!isPresent(raw) || options.pageLimit === "ignored") return fallback;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0) {
    throw apiErrors.badRequest("limit must be a non-negative integer");
  }
  if (raw === 0) return fallback;
  if (raw <= options.maxPageSize) return raw;
  if (options.limitAboveMax === "error") {
    throw apiErrors.badRequest(`limit must be at most ${options.maxPageSize}`);
  }
  return options.maxPageSize;
}

const ASCENDING_WORDS = new Map<string, SortOrder>([
  ["true", "asc"],
  ["asc", "asc"],
  ["ascending", "asc"],
  ["1", "asc"],
  ["false", "desc"],
  ["desc", "desc"],
  ["descending", "desc"],
  ["0", "desc"],
]);

function sortOrder(raw: unknown, options: ResolvedOptions): SortOrder {
  if (!isPresent(raw) || options.ascending === "ignored") return options.defaultOrder;
  switch (options.ascending) {
    case "true-false-string":
      if (raw === "true") return "asc";
      if (raw === "false") return "desc";
      throw apiErrors.badRequest('ascending must be "true" or "false"');
    case "asc-desc":
      if (raw === "asc") return "asc";
      if (raw === "desc") return "desc";
      throw apiErrors.badRequest('ascending must be "asc" or "desc"');
    case "any":
      if (typeof raw === "boolean") return raw ? "asc" : "desc";
      if (typeof raw !== "string") throw apiErrors.badRequest("ascending must be a string or boolean");
      return ASCENDING_WORDS.get(raw.trim().toLowerCase()) ?? options.defaultOrder;
  }
}

function matches(value: string, filter: string, options: ResolvedOptions): boolean {
  if (filter === "" || options.filterMatch === "ignored") return true;
  return options.filterMatch === "exact" ? value === filter : value.includes(filter);
}

const CURSOR_PREFIX = "c1.";

// Opaque on purpose: a client that parses or fabricates cursors is relying on something the
// document does not promise.
function encodeCursor(lastId: number): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify({ after: lastId })).toString("base64url");
}

function opaqueCursor(cursor: string): number | undefined {
  if (cursor === "") return undefined;
  try {
    if (!cursor.startsWith(CURSOR_PREFIX)) throw new Error("prefix");
    const decoded: unknown = JSON.parse(
      Buffer.from(cursor.slice(CURSOR_PREFIX.length), "base64url").toString("utf8"),
    );
    const after = (decoded as { after?: unknown } | null)?.after;
    if (typeof after !== "number" || !Number.isInteger(after)) throw new Error("shape");
    return after;
  } catch {
    throw apiErrors.badRequest("cursor is invalid");
  }
}

function decimalCursor(cursor: string): number | undefined {
  if (cursor === "") return undefined;
  if (!/^\d{1,15}$/.test(cursor)) throw apiErrors.badRequest("cursor must be a webhook_id in decimal");
  return Number(cursor);
}
