import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { withoutUndefined } from '../../../support/records.js';
import { UntranslatableError } from '../../untranslatable.js';

/**
 * Parts between 0.3's two wire forms. Its JSON-RPC form (a2a.json) discriminates by `kind` and
 * nests a file as `{bytes | uri, mimeType, name}`; its HTTP+JSON form, the ProtoJSON of the 0.3
 * proto, holds one of `text`, `file: {fileWithBytes | fileWithUri, mimeType}` or
 * `data: {data}`.
 *
 * Lossy toward ProtoJSON (docs/spec-policy.md 10.5): a part's `metadata` and a file's `name`,
 * which the proto has no field for.
 */
export function partToProto(part: V03.Part): P.Part {
  switch (part.kind) {
    case 'text':
      return { text: part.text };
    case 'data':
      return { data: { data: part.data } };
    case 'file': {
      const { file } = part;
      return 'bytes' in file
        ? { file: withoutUndefined({ fileWithBytes: file.bytes, mimeType: file.mimeType }) }
        : { file: withoutUndefined({ fileWithUri: file.uri, mimeType: file.mimeType }) };
    }
  }
}

export function partFromProto(part: P.Part, path: string): V03.Part {
  if (part.text !== undefined) return { kind: 'text', text: part.text };
  if (part.data !== undefined) return { kind: 'data', data: part.data.data ?? {} };
  const file = part.file;
  if (file?.fileWithBytes !== undefined)
    return { kind: 'file', file: withoutUndefined({ bytes: file.fileWithBytes, mimeType: file.mimeType }) };
  if (file?.fileWithUri !== undefined) return { kind: 'file', file: withoutUndefined({ uri: file.fileWithUri, mimeType: file.mimeType }) };
  throw new UntranslatableError(
    file === undefined ? path : `${path}.file`,
    'holds no content: a part needs text, file (fileWithUri or fileWithBytes) or data',
  );
}
