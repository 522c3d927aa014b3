import addFormatsModule from 'ajv-formats';
import { Ajv2020, type Options } from 'ajv/dist/2020.js';

/** Annotation keywords spec/ may use besides standard 2020-12 (see spec/README.md). */
export const ANNOTATION_KEYWORDS = ['x-presence', 'x-oneof', 'x-proto-unspecified', 'x-pattern-description', 'x-proto-name'] as const;

/**
 * The one ajv configuration every spec schema is compiled with. Strict mode stays on, except
 * `strictRequired`: a proto oneof is written as branches that only say `required: [member]`
 * while the member is declared on the parent, which strictRequired cannot see. The codegen's
 * own convention check enforces what strictRequired would (every required name is declared).
 * `allowUnionTypes`: A2A 0.3's JSON Schema writes a JSON-RPC id as `"type": ["string", "integer", "null"]`.
 */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: true,
    discriminator: true,
    keywords: [...ANNOTATION_KEYWORDS],
    ...options,
  });
  addFormatsModule.default(ajv);
  return ajv;
}
