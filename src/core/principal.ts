/**
 * Facts before claims. The API cannot say which principal a token is, and two things speak of it:
 * - facts: what the state records for each endpoint this stack created on a service (its provenance
 *   says so): the creator the service gave it, a fact that never changes;
 * - a claim: the principal a configuration names for its own token (`principalId`), which may be
 *   mistyped or another team's.
 * A claim that contradicts a recorded fact is refused, naming both, before anything is sent to the
 * service: the answers it would judge could not be used (every create of the stack's own token
 * would be refused after it was made, and nothing can delete it). The one rule for the provider
 * core (diff and create, both faces) and `webhooks recover`.
 */

/** An endpoint this stack created on a service, and its creator, as the state records them. */
export interface CreatorFact {
  webhookId: number;
  creatorId: number;
  /**
   * Names what holds it in a message: a resource's URN, or its endpoint name; "" when nothing may be
   * shown. A function where naming it costs work (quoting service text) that only a refusal needs.
   */
  holder: string | (() => string);
}

/** The principal a configuration names for its own token, and where. */
export interface PrincipalClaim {
  id: number;
  /** Where it is set, e.g. "stack config webhooks:principalId" (never its value). */
  source: string;
  /** How to set it there, `<value>` standing for the value, e.g. "pulumi config set webhooks:principalId <value>". */
  howToSet: string;
}

/** How to set a value held secret: `pulumi config set --secret ...` (an environment variable stays as it is). */
export function secretSetting(howToSet: string): string {
  return howToSet.replace(/^pulumi config set (?!--secret )/, "pulumi config set --secret ");
}

/** A claim and a fact it contradicts. */
export interface Contradiction {
  claim: PrincipalClaim;
  fact: CreatorFact;
}

/**
 * The claim and a fact it contradicts: one whose creator is not the claimed principal (the lowest
 * webhook_id, so that the answer does not depend on the order the facts were learnt in); undefined
 * when there is no claim or every fact agrees with it. Any one such fact is enough: the stack's
 * token made that endpoint, so its creator is the token's principal, unless the state records an
 * endpoint that is not the stack's (a release before `principalId` recorded another principal's
 * answer as created), which the refusal names so that a person can remove it.
 */
export function contradiction(
  claim: PrincipalClaim | undefined,
  facts: Iterable<CreatorFact>,
): Contradiction | undefined {
  if (claim === undefined) return undefined;
  let found: CreatorFact | undefined;
  for (const fact of facts)
    if (fact.creatorId !== claim.id && (found === undefined || fact.webhookId < found.webhookId))
      found = fact;
  return found === undefined ? undefined : { claim, fact: found };
}

/** The stack's principal as far as can be told: the claim when one is made, else the creators the facts record. */
export function principalsOf(claim: PrincipalClaim | undefined, facts: Iterable<CreatorFact>): Set<number> {
  if (claim !== undefined) return new Set([claim.id]);
  return new Set([...facts].map((fact) => fact.creatorId));
}

/**
 * The refusal of a claim that contradicts a fact: both named (the configured id and where it is
 * set; the endpoint, what holds it and its recorded creator), that nothing was sent, and what to do.
 * `done` says what was not done ("nothing was sent to the service", "nothing was changed"). A claim
 * held secret (`secret`) keeps the creators secret too (the state holds an endpoint's creator
 * secret when principalId is): neither is named, and the fix sets the value with `--secret`.
 */
export function contradictionMessage({ claim, fact }: Contradiction, done: string, secret = false): string {
  const named = typeof fact.holder === "function" ? fact.holder() : fact.holder;
  const holder = named === "" ? "" : ` (${named})`;
  const creator = secret
    ? "as created by another creator (held secret, as principalId is: `pulumi stack export --show-secrets` shows the endpoint's creatorId)"
    : `as created by creator ${fact.creatorId}`;
  const fix = secret
    ? secretSetting(claim.howToSet).replace("<value>", "<creatorId>")
    : claim.howToSet.replace("<value>", String(fact.creatorId));
  return `${claim.source} is ${secret ? "[secret]" : claim.id}, but the state records endpoint ${fact.webhookId}${holder}, which this stack created on this service, ${creator}: the principalId contradicts what the state records, so ${done}. If principalId is wrong, correct it (\`${fix}\`) or remove it. If the state's record is what is wrong (an endpoint another principal created, recorded by a release that had no principalId), remove that resource from the state (\`pulumi state delete <urn>\`) and adopt it with adoptWebhookId if the stack must keep it; the same, for each endpoint, if this stack's access token now belongs to another principal`;
}
