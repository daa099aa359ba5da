import { MAX_MESSAGE_CHARS, showable } from "../text";

/**
 * A failure of the provider core that the user must act on. Its message is bounded and free of
 * control characters, whatever service text it quotes.
 */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(message: string, cause?: unknown) {
    super(showable(message, MAX_MESSAGE_CHARS), cause === undefined ? undefined : { cause });
  }
}

/**
 * The endpoint exists but the operation failed afterwards. Both faces hand `id` and `properties`
 * to the engine, which records the endpoint in state instead of forgetting it (the API cannot
 * delete, so a forgotten endpoint would be recreated next run and remain forever).
 */
export class EndpointCreatedButFailedError extends ProviderError {
  override name = "EndpointCreatedButFailedError";
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];
  constructor(message: string, id: string, properties: Record<string, unknown>) {
    super(message);
    this.id = id;
    this.properties = properties;
    this.reasons = [this.message];
  }
}
