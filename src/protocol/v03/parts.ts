import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { isRecord, withoutUndefined } from '../../support/records.js';

/**
 * Parts. 0.3 discriminates by `kind` and nests files (`file: {bytes | uri, mimeType, name}`);
 * 1.0 has one Part whose content member (`text`, `raw`, `url`, `data`) says what it is, with
 * `mediaType` and `filename` beside it on every kind.
 *
 * Lossy toward 0.3 (docs/spec-policy.md): a text or data part's `mediaType` and `filename`
 * (0.3 has them on files only) are dropped, and a `data` value that is not an object (1.0's
 * google.protobuf.Value allows any JSON; 0.3's DataPart.data is an object) is wrapped as
 * `{"value": …}`.
 */
export function partTo03(part: V10.Part): V03.Part {
  const metadata = part.metadata;
  if (part.text !== undefined) return withoutUndefined({ kind: 'text', text: part.text, metadata });
  if (part.raw !== undefined) {
    return withoutUndefined({
      kind: 'file',
      file: withoutUndefined({ bytes: part.raw, mimeType: part.mediaType, name: part.filename }),
      metadata,
    });
  }
  if (part.url !== undefined) {
    return withoutUndefined({
      kind: 'file',
      file: withoutUndefined({ uri: part.url, mimeType: part.mediaType, name: part.filename }),
      metadata,
    });
  }
  const data = isRecord(part.data) ? part.data : { value: part.data };
  return withoutUndefined({ kind: 'data', data, metadata });
}

export function partFrom03(part: V03.Part): V10.Part {
  const metadata = part.metadata;
  switch (part.kind) {
    case 'text':
      return withoutUndefined({ text: part.text, metadata });
    case 'data':
      return withoutUndefined({ data: part.data, metadata });
    case 'file': {
      const { file } = part;
      const described = { mediaType: file.mimeType, filename: file.name, metadata };
      return 'bytes' in file ? withoutUndefined({ raw: file.bytes, ...described }) : withoutUndefined({ url: file.uri, ...described });
    }
  }
}
