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
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const wire = wireErrorOf(error.code);
  if (wire === undefined) {
    socket.end(`HTTP/1.1 400 ${STATUS_CODES[400]}\r\nConnection: close\r\n\r\n`);
    return;
  }
  const status = wire.definition.httpStatus;
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${MEDIA_TYPES.a2aJson}\r\nConnection: close\r\n`;
  // A HEAD answer never has a body (RFC 9110 §9.3.2); nor has one to a request whose method
  // cannot be told, which might be a HEAD.
  if (methodOf(error.rawPacket, error.bytesParsed) !== 'body') {
    socket.end(`${head}Content-Length: 0\r\n\r\n`);
    return;
  }
  const body = JSON.stringify(wire.toRestErrorResponse());
  socket.end(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

/** The longest method token read when telling a request's method from its first bytes. */
const METHOD_LENGTH_LIMIT = 16;

/**
 * Whether the failed request may get an error body: `body` when its method can be read and is
 * not HEAD; `none` for HEAD, and when the packet Node could not parse starts in the middle of a
 * request (headers long enough to come in several reads), whose method is then unknown. The
 * failed request starts after the last empty line before the point where parsing failed (the
 * requests before it in the packet were complete), or at the packet's start.
 */
function methodOf(packet: unknown, bytesParsed: unknown): 'body' | 'none' {
  if (!Buffer.isBuffer(packet)) return 'none';
  const failedAt = typeof bytesParsed === 'number' && bytesParsed >= 0 && bytesParsed <= packet.length ? bytesParsed : packet.length;
  const before = packet.subarray(0, failedAt);
  const boundary = before.lastIndexOf('\r\n\r\n');
  const start = boundary === -1 ? 0 : boundary + 4;
  const line = packet.subarray(start, start + METHOD_LENGTH_LIMIT + 1).toString('latin1');
  const space = line.indexOf(' ');
  const method = space <= 0 ? '' : line.slice(0, space);
  if (method === '' || !/^[A-Z]+$/.test(method)) return 'none';
  return method === 'HEAD' ? 'none' : 'body';
}

function wireErrorOf(code: string | undefined): A2AError | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return a2aError(
      'HeadersTooLargeError',
      `the request line and headers exceed the ${maxHeaderSize} bytes this hub reads; send a shorter query or fewer headers`,
    );
  }
  if (code?.startsWith('HPE_') === true) return a2aError('InvalidRequestError', `the request is not valid HTTP/1.1 (${code})`);
  // The head or the whole request did not arrive in time (connections.headersTimeoutMs,
  // requestTimeoutMs). Node gives no packet with it: the answer carries no body (see methodOf).
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return a2aError('RequestTimeoutError', 'the request did not arrive in time');
  return undefined;
}
