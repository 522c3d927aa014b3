/**
 * A value that has no counterpart in the other version and cannot be carried over without
 * inventing data (a 0.3 task in state `unknown`, a 1.0 task without a contextId, which 0.3
 * requires). `path` names the member, as a JSON path from the translated value.
 */
export class UntranslatableError extends Error {
  override readonly name = 'UntranslatableError';

  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}
