/**
 * What the API document fixes, written once: the two paths, the success code and messages, and the
 * record's fields. Both the client and the emulator read the document through this module; it
 * imports nothing.
 */

/** Every path begins with the version (section 9). */
export const API_PREFIX = "/open-api/v1";
/** Section 4.1: list webhook endpoints. */
export const LIST_PATH = `${API_PREFIX}/webhooks`;
/** Section 4.2: create a webhook endpoint. */
export const CREATE_PATH = `${API_PREFIX}/webhooks/create`;

/** Section 2: the envelope's `code` on success. */
export const SUCCESS_CODE = "200";
/** Section 2: the envelope's `msg` on success, per operation. */
export const SUCCESS_MSG = { list: "SUCCESS", create: "Success" } as const;

/** Section 2: a trace id is 32 hexadecimal characters. */
export const TRACE_ID_PATTERN = /^[0-9a-fA-F]{32}$/;

/** Section 4.1: the list request's fields. */
export const LIST_REQUEST_FIELDS = ["cursor", "limit", "webhook_name", "webhook_url", "ascending"] as const;
export type ListRequestField = (typeof LIST_REQUEST_FIELDS)[number];

/** Section 2: the webhook endpoint record, as both operations return it. */
export interface ApiWebhookRecord {
  webhook_id: number;
  webhook_name: string;
  webhook_url: string;
  sign_secret: string;
  creator_id: number;
  creator_name: string;
  /** Milliseconds since the Unix epoch. */
  create_time: number;
  operator_id: number;
  operator_name: string;
  /** Milliseconds since the Unix epoch. */
  operate_time: number;
}

/** The two operations. */
export type ApiOperation = "list" | "create";
