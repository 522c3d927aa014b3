import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { A2A_1_0 } from '../../../src/protocol/a2a-schema.js';
import { isSchema, properties, requiredNames, resolveRef, type JsonSchema } from '../../../src/protocol/json-schema.js';
import { canonicalJson } from '../../../src/support/canonical-json.js';
import { setOwn } from '../../../src/support/own-property.js';
import { isRecord } from '../../../src/support/records.js';

/*
 * Agent card signatures (spec §8.4): the payload they cover, the RFC 8785 (JCS) canonical card
 * with signatures removed and proto defaults omitted, and detached-payload JWS verification.
 */

function isDefaultValue(value: unknown, schema: JsonSchema): boolean {
  if (value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  // Maps (additionalProperties with a schema, no properties) default to empty; messages,
  // Struct included, have explicit presence and stay even when empty.
  return isRecord(value) && Object.keys(value).length === 0 && isSchema(schema['additionalProperties']) && !isSchema(schema['properties']);
}

/**
 * A value with proto field-presence applied: implicit-presence members holding their default
 * ("", 0, false, [], empty map) are dropped; REQUIRED and explicit-presence members stay.
 */
function omitDefaults(value: unknown, schema: JsonSchema): unknown {
  const resolved = resolveRef(A2A_1_0.document, schema);
  if (Array.isArray(value)) {
    const items = resolved['items'];
    return isSchema(items) ? value.map((item) => omitDefaults(item, items)) : value;
  }
  if (!isRecord(value)) return value;
  const members = properties(resolved);
  if (Object.keys(members).length > 0) {
    const required = requiredNames(resolved);
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      // Own members only: an unknown member named `constructor` is still unknown, and kept.
      const memberSchema = Object.hasOwn(members, key) ? members[key] : undefined;
      if (memberSchema === undefined) {
        setOwn(out, key, member);
        continue;
      }
      const pruned = omitDefaults(member, memberSchema);
      const keep =
        required.includes(key) ||
        memberSchema['x-presence'] === 'explicit' ||
        !isDefaultValue(pruned, resolveRef(A2A_1_0.document, memberSchema));
      if (keep) setOwn(out, key, pruned);
    }
    return out;
  }
  const entries = resolved['additionalProperties'];
  if (isSchema(entries)) return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, omitDefaults(member, entries)]));
  return value;
}

/** The JCS payload a card signature covers: signatures removed, defaults omitted. */
export function cardSigningPayload(card: unknown, options: { omitDefaults?: boolean } = {}): string {
  const rest = isRecord(card) ? Object.fromEntries(Object.entries(card).filter(([key]) => key !== 'signatures')) : card;
  const agentCard = A2A_1_0.document.$defs['AgentCard'];
  return canonicalJson(options.omitDefaults === false || agentCard === undefined ? rest : omitDefaults(rest, agentCard));
}

export type VerifyOutcome = { ok: true } | { ok: false; reason: string } | { skip: string };

/** Verifies a detached-payload JWS with a public key; `skip` when the algorithm is not one the suite knows. */
function verifyJws(alg: string, key: KeyObject, signingInput: string, signature: Buffer): boolean | undefined {
  const data = Buffer.from(signingInput, 'ascii');
  const family = /^(ES|RS|PS)(256|384|512)$/.exec(alg);
  if (family?.[1] !== undefined && family[2] !== undefined) {
    const digest = `sha${family[2]}`;
    if (family[1] === 'ES') return verify(digest, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    if (family[1] === 'RS') return verify(digest, data, key, signature);
    return verify(digest, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(family[2]) / 8 }, signature);
  }
  if (alg === 'EdDSA' || alg === 'Ed25519') return verify(null, data, key, signature);
  return undefined;
}

/** Verifies one card signature against the card, over the canonical form with defaults omitted (and, to say what went wrong, with them kept). */
export function verifySignature(
  card: unknown,
  protectedB64: string,
  header: Record<string, unknown>,
  unprotected: unknown,
  signatureB64: string,
): VerifyOutcome {
  const jwk = header['jwk'] ?? (isRecord(unprotected) ? unprotected['jwk'] : undefined);
  if (!isRecord(jwk))
    return {
      skip: 'no key material: neither the protected nor the unprotected header carries a jwk (jku and out-of-band keys are not fetched)',
    };
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch (error) {
    return { ok: false, reason: `the embedded jwk is not a usable public key: ${error instanceof Error ? error.message : String(error)}` };
  }
  const alg = String(header['alg']);
  const signature = Buffer.from(signatureB64, 'base64url');
  for (const omit of [true, false]) {
    const input = `${protectedB64}.${Buffer.from(cardSigningPayload(card, { omitDefaults: omit }), 'utf8').toString('base64url')}`;
    let verified: boolean | undefined;
    try {
      verified = verifyJws(alg, key, input, signature);
    } catch (error) {
      return { ok: false, reason: `verification with alg ${alg} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (verified === undefined) return { skip: `alg ${alg} is not one the suite verifies (ES256/384/512, RS*, PS*, EdDSA)` };
    if (verified)
      return omit
        ? { ok: true }
        : {
            ok: false,
            reason:
              'the signature verifies only over the card with its default-valued members kept, not over the canonical form with defaults omitted',
          };
  }
  return {
    ok: false,
    reason: 'the signature does not verify over the JCS canonical form of the card (signatures removed, defaults omitted)',
  };
}
