import type { Context } from 'koa';
import { WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { baseUrlOf, type BaseUrlOptions } from '../http/base-url.js';
import { respondWithError } from '../http/http-errors.js';
import type { InboundConfig, InboundRegistry } from '../inbound/inbound-registry.js';
import { pathsOf } from '../inbound/instance-paths.js';
import { a2aError } from '../protocol/a2a-error.js';
import { isLoopbackAddress } from './loopback.js';

export interface LandingOptions extends BaseUrlOptions {
  readonly inbounds: Pick<InboundRegistry, 'list' | 'defaultAgent' | 'unavailableReason'>;
}

/** More agents than this make a message nobody reads; the snapshot lists them all. */
const LISTED_AGENTS = 10;

/**
 * What the hub answers where nothing is served. Everyone gets a JSON 404 (google.rpc.Status)
 * whose message says where things are: an error is never an HTML page. The one exception is a
 * browser on this machine opening /, which is sent to the panel, since that is what it came for.
 * Peers that are not loopback would get 403 from the panel and the control API, so they are
 * never told of them: their 404 names the public agent card only, whatever they accept.
 */
export function notFoundHandler(options: LandingOptions): (ctx: Context) => void {
  return (ctx) => {
    const loopback = isLoopbackAddress(ctx.socket.remoteAddress);
    const readsPages = (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.accepts('json', 'html') === 'html';
    if (loopback && readsPages && ctx.path === '/') return ctx.redirect(CONTROL_API.panelPath);
    const where = `nothing is served at ${ctx.method} ${ctx.path}`;
    respondWithError(
      ctx,
      a2aError('NotFoundError', `${where}; ${loopback ? localDirections(ctx, options) : publicDirections(ctx, options)}`),
    );
  };
}

/** The instances that answer now: disabled ones would 404 too, and unavailable ones refuse every call. */
function servedAgents(options: LandingOptions): InboundConfig[] {
  return options.inbounds.list().filter((inbound) => inbound.enabled && options.inbounds.unavailableReason(inbound.id) === undefined);
}

function localDirections(ctx: Context, options: LandingOptions): string {
  // The URL this peer used, not publicUrl: that names the hub as the world reaches it.
  const base = baseUrlOf(ctx, { trustProxy: false });
  const agents = servedAgents(options);
  const listed = agents.slice(0, LISTED_AGENTS).map((agent) => {
    const paths = pathsOf(agent);
    return `${JSON.stringify(agent.name)}: JSON-RPC at ${base}${paths.jsonRpcPath}, HTTP+JSON below ${base}${paths.restPath}, card at ${base}${paths.cardPath}`;
  });
  const more = agents.length > LISTED_AGENTS ? `; and ${agents.length - LISTED_AGENTS} more` : '';
  const served = agents.length === 0 ? 'this hub serves no agent now' : `this hub's agents: ${listed.join('; ')}${more}`;
  return `${served}; the control panel is at ${base}${CONTROL_API.panelPath} and the control API at ${base}${CONTROL_API.basePath}`;
}

function publicDirections(ctx: Context, options: LandingOptions): string {
  if (options.inbounds.defaultAgent() === undefined) return 'this hub publishes no agent card';
  return `this hub's agent card is at ${baseUrlOf(ctx, options)}${WELL_KNOWN_AGENT_CARD_PATH}`;
}
