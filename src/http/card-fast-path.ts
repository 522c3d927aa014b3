import type { IncomingMessage, ServerResponse } from 'node:http';
import { HEADERS, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CARD_PATH_SUFFIX } from '../protocol/card-location.js';
import type { AgentDirectory } from '../server/hosted-agent.js';
import { originOf, type RequestOrigin } from './base-url.js';
import { cardAnswer, type CardAnswer, type CardEndpointOptions } from './card-endpoint.js';

export interface CardFastPathOptions extends Omit<CardEndpointOptions, 'maxAgeSeconds'> {
  readonly directory: AgentDirectory;
  readonly cardMaxAgeSeconds: number;
}

/**
 * Answers the plain card requests straight from node:http, before Koa: a GET or HEAD, with no
 * query, of the well-known card or of a served agent's `<endpoint>/agent-card.json`. Every
 * client fetches a card before anything else, so it is the hub's most frequent request, and
 * Koa's context and middleware took three fifths of its time (docs/performance.md). The answer
 * is cardAnswer's, the one serveCard gives through Koa. Anything else (another method, a query,
 * a trailing slash, an agent that is not served) returns false: Koa answers it, the same card
 * or the right error.
 */
export function cardFastPath(options: CardFastPathOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  const endpoint = { ...options, maxAgeSeconds: options.cardMaxAgeSeconds };
  return (request, response) => {
    const url = request.url ?? '';
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !url.endsWith(CARD_PATH_SUFFIX)) return false;
    const agent =
      url === WELL_KNOWN_AGENT_CARD_PATH
        ? options.directory.defaultAgent()
        : url.startsWith('/') && !url.includes('?')
          ? options.directory.byEndpointPath(url.slice(0, -CARD_PATH_SUFFIX.length))
          : undefined;
    if (agent === undefined) return false;
    const origin: RequestOrigin = { get: (name) => headerOf(request, name), socket: request.socket };
    let answer: CardAnswer;
    try {
      const { baseUrl, forwarded } = originOf(origin, options);
      answer = cardAnswer(
        {
          version: headerOf(request, HEADERS.version),
          ifNoneMatch: headerOf(request, 'if-none-match'),
          baseUrl,
          forwarded,
        },
        agent,
        endpoint,
      );
    } catch {
      // Koa's error handling logs it and answers a JSON error: nothing is written here yet.
      return false;
    }
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
    return true;
  };
}

/** A header as Koa's ctx.get reads it: '' when absent, repeated ones joined. */
function headerOf(request: IncomingMessage, name: string): string {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
