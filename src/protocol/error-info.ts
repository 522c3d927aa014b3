import { ERROR_BY_REASON, ERRORS, type ErrorDefinition, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { setOwn } from '../support/own-property.js';
import { isRecord } from '../support/records.js';

/**
 * Which registered error a remote error is, read from its google.rpc.ErrorInfo. Codes alone
 * cannot say: the hub's errors share JSON-RPC codes (-32000, -32600) with each other and with
 * spec errors, and only the reason and domain of the ErrorInfo tell them apart.
 */

/**
 * The registry's error named by the first detail carrying a reason and domain, when both match
 * one row and `consistent` accepts that row (e.g. its JSON-RPC code or HTTP status is the one
 * received: a reason contradicting the code is not trusted over it).
 */
export function registeredErrorOf(details: unknown, consistent: (definition: ErrorDefinition) => boolean): ErrorName | undefined {
  if (!Array.isArray(details)) return undefined;
  const info = (details as unknown[]).find(
    (detail): detail is { reason: string; domain: string } =>
      isRecord(detail) && typeof detail['reason'] === 'string' && typeof detail['domain'] === 'string',
  );
  if (info === undefined) return undefined;
  const name = ERROR_BY_REASON.get(info.reason);
  if (name === undefined) return undefined;
  const definition = ERRORS[name];
  return definition.domain === info.domain && consistent(definition) ? name : undefined;
}

/** The string metadata of every ErrorInfo among `details`, merged (the A2AError metadata of a remote error). */
export function errorInfoMetadata(details: unknown): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (!Array.isArray(details)) return metadata;
  for (const detail of details as unknown[]) {
    const info = isRecord(detail) ? detail['metadata'] : undefined;
    if (!isRecord(info)) continue;
    for (const [key, value] of Object.entries(info)) if (typeof value === 'string') setOwn(metadata, key, value);
  }
  return metadata;
}
