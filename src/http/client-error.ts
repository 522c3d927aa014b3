import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';

/**
 * What the hub answers a request Node could not parse (the http server's `clientError`). Node's
 * own answer is a bare status line; a client of an A2A hub expects an error body it can read,
 * so the failures the registry names get a google.rpc.Status body (the request was never parsed,
 * so no binding was chosen: the Status is the one shape both bindings' clients read). The rest
 * keep Node's behaviour.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const wire = wireErrorOf(error.code);
  if (wire === undefined) {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
    return;
  }
  const status = wire.definition.httpStatus;
  const body = JSON.stringify(wire.toRestErrorResponse());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${MEDIA_TYPES.a2aJson}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function wireErrorOf(code: string | undefined): A2AError | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return a2aError(
      'HeadersTooLargeError',
      `the request line and headers exceed the ${maxHeaderSize} bytes this hub reads; send a shorter query or fewer headers`,
    );
  }
  if (code?.startsWith('HPE_') === true) return a2aError('InvalidRequestError', `the request is not valid HTTP/1.1 (${code})`);
  return undefined;
}
