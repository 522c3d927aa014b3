/**
 * A management operation that cannot be done as asked: an unknown id, an endpoint path that
 * is taken, an unknown preset. Its message says what to do instead; the control API answers
 * it with 409.
 */
export class OperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationError';
  }
}
