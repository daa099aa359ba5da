/**
 * The principal a token is. The API cannot say which principal a token is: a configuration may
 * claim it (`principalId`), for its own token only (settings.ts, PRINCIPAL_FOR_TOKEN).
 */

/** The principal a configuration names for its own token, and where. */
export interface PrincipalClaim {
  id: number;
  /** Where it is set, e.g. "stack config webhooks:principalId" (never its value). */
  source: string;
  /** How to set it there, `<value>` standing for the value, e.g. "pulumi config set webhooks:principalId <value>". */
  howToSet: string;
}
