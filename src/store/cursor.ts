import { createHash } from 'node:crypto';
import { isRecord } from '../support/records.js';
import { InvalidCursorError } from './task-store.js';

/** A task's place in ListTasks order: status timestamp (ms) descending, then id descending. */
export interface ListPosition {
  readonly ts: number;
  readonly id: string;
}

/** What a walk through ListTasks pages carries from one page to the next. */
export interface CursorState {
  /** The store's change watermark at the first page: the snapshot the walk reads. */
  readonly asOf: number;
  /** The last task returned; the next page starts after it. */
  readonly after: ListPosition;
  /** totalSize as computed at the first page, so that every page reports the same. */
  readonly total: number;
}

const VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A short digest of the filters (and instance) a walk was started with. The cursor carries
 * it so that a token replayed with other filters, or by another instance, is refused instead
 * of silently paging through a different result set.
 */
export function filterKey(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

export function encodeCursor(state: CursorState, key: string): string {
  const body = { v: VERSION, asOf: state.asOf, ts: state.after.ts, id: state.after.id, total: state.total, f: key };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** Reads a cursor made by `encodeCursor` for the same filter key; anything else is refused. */
export function decodeCursor(token: string, key: string): CursorState {
  const body = parseBody(token);
  if (
    body === undefined ||
    body['v'] !== VERSION ||
    !isCount(body['asOf']) ||
    !Number.isSafeInteger(body['ts']) ||
    typeof body['id'] !== 'string' ||
    !isCount(body['total']) ||
    typeof body['f'] !== 'string'
  ) {
    throw new InvalidCursorError();
  }
  if (body['f'] !== key) throw new InvalidCursorError('pageToken was issued for other filters');
  return { asOf: body['asOf'], after: { ts: body['ts'] as number, id: body['id'] }, total: body['total'] };
}

function parseBody(token: string): Record<string, unknown> | undefined {
  // Buffer's decoder skips characters outside the alphabet; check first so that no two
  // different tokens are read as one.
  if (!BASE64URL.test(token)) return undefined;
  try {
    const body: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return isRecord(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
