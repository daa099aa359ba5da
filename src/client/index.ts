export { WebhooksClient, LIST_PATH, CREATE_PATH, parseBaseUrl } from "./client";
export * from "./errors";
export type * from "./types";
