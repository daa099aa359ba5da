/**
 * What every error a caller can see must satisfy, whatever a server sent (the trust-hardening
 * issue): typed, at most 2000 characters of message with no C0/C1 control characters and no
 * zero-width or bidirectional controls, the service's own text quoted only capped, a trace id
 * only in its documented form, and the token nowhere (message, properties, cause chain).
 */
import { WebhookApiError } from "../../src/client";
import { everythingVisible } from "../support/helpers";
import { KNOWN_DEPARTURES, departuresMet, isObject, type Json } from "./oracle";

export const MAX_MESSAGE_CHARS = 2000;
/** "msg ≤ ~300 chars": 300 characters and a cut mark. */
export const MAX_QUOTED_CHARS = 301;

/**
 * Characters no error message may hold: C0 controls, DEL, C1 controls (ESC and CSI start terminal
 * escape sequences), and the invisible or reordering ones: ALM, zero-width space/joiners, LRM/RLM,
 * bidi embeddings and overrides, word joiner and invisible operators, bidi isolates, BOM.
 */
export const UNSHOWABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
export const TRACE_ID_FORM = /^[0-9a-fA-F]{32}$/;

/** Why a known departure may explain a token found in an error (each counted when it does). */
export interface LeakExcuses {
  /** Texts the server sent in this exchange (every string in its bodies). */
  serviceStrings?: readonly string[];
  /** Names, URLs and principal names of records listed during a create. */
  recordTexts?: readonly string[];
}

/** Every string in a JSON value, breadth first, bounded. */
export function stringsIn(value: Json, budget = 10_000): string[] {
  const out: string[] = [];
  const queue: Json[] = [value];
  while (queue.length > 0 && budget-- > 0) {
    const current = queue.shift();
    if (typeof current === "string") out.push(current);
    else if (Array.isArray(current)) queue.push(...current);
    else if (isObject(current)) queue.push(...Object.keys(current), ...Object.values(current));
  }
  return out;
}

const stripUnshowable = (text: string) => text.replace(new RegExp(UNSHOWABLE.source, "gu"), "");

/** Problems with an error a caller can see; empty when it is safe to show anywhere. */
export function errorProblems(error: unknown, token: string, excuses: LeakExcuses = {}): string[] {
  if (!(error instanceof WebhookApiError)) return [`not a WebhookApiError: ${String(error).slice(0, 300)}`];
  const problems: string[] = [];
  const { message } = error;
  if (message.length > MAX_MESSAGE_CHARS) {
    if (
      KNOWN_DEPARTURES.cutMessageIs2001Chars &&
      message.length === MAX_MESSAGE_CHARS + 1 &&
      message.endsWith("…")
    )
      departuresMet.cutMessageIs2001Chars++;
    else problems.push(`message of ${message.length} characters`);
  }
  const bad = UNSHOWABLE.exec(message);
  if (bad)
    problems.push(`message holds U+${bad[0].codePointAt(0)!.toString(16).padStart(4, "0")} at ${bad.index}`);
  if (error.msg !== undefined && error.msg.length > MAX_QUOTED_CHARS)
    problems.push(`msg of ${error.msg.length} characters`);
  if (error.serviceCode !== undefined && error.serviceCode.length > MAX_QUOTED_CHARS)
    problems.push(`serviceCode of ${error.serviceCode.length} characters`);
  if (
    KNOWN_DEPARTURES.pagingErrorTraceIdEmpty &&
    error.code === "WEBHOOK_PAGING_FAILED" &&
    error.traceId === ""
  )
    departuresMet.pagingErrorTraceIdEmpty++;
  else if (error.traceId !== undefined && !TRACE_ID_FORM.test(error.traceId))
    problems.push(`traceId ${JSON.stringify(error.traceId.slice(0, 60))} not in the documented form`);
  if (everythingVisible(error).includes(token)) {
    const rejoined = (excuses.serviceStrings ?? []).some(
      (text) => !text.includes(token) && stripUnshowable(text).includes(token),
    );
    const quotedRecord =
      (error.code === "WEBHOOK_ENDPOINT_EXISTS" || error.code === "WEBHOOK_CREATE_UNCERTAIN") &&
      (excuses.recordTexts ?? []).some((text) => text.includes(token));
    if (KNOWN_DEPARTURES.tokenRejoinedAfterStripping && rejoined) departuresMet.tokenRejoinedAfterStripping++;
    else if (KNOWN_DEPARTURES.recordTextNotRedactedInCreateErrors && quotedRecord)
      departuresMet.recordTextNotRedactedInCreateErrors++;
    else problems.push(`the token is visible in the ${error.name} (message: ${message.slice(0, 200)})`);
  }
  return problems;
}
