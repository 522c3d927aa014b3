import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { addressPolicyKey, guardLookup, resolveUrlPolicy, type UrlPolicy } from './destination-policy.js';

/**
 * The undici Agent every outbound request of the project goes through (client calls, outbound
 * connections, push webhooks). Its connector resolves the hostname with `guardLookup`, so the
 * addresses the policy checked are the ones the socket connects to: nothing resolves the name
 * again between check and connect, and DNS rebinding cannot slip a refused address in. (IP
 * literals skip the lookup; `checkUrl` has already checked them.)
 *
 * Shared per address policy (and resolver) so that requests reuse connections; idle sockets do
 * not keep the process alive.
 */
export function guardedAgent(policy: UrlPolicy = {}, lookup?: LookupFunction): Agent {
  const effective = resolveUrlPolicy(policy);
  // Only the address classes and ranges matter at connect time; schemes and hosts are checked per URL.
  const key = addressPolicyKey(effective);
  let cache = agents;
  if (lookup !== undefined) {
    cache = agentsByLookup.get(lookup) ?? new Map<string, Agent>();
    agentsByLookup.set(lookup, cache);
  }
  let agent = cache.get(key);
  if (agent === undefined) {
    agent = new Agent({ connect: { lookup: guardLookup(effective, lookup) } });
    cache.set(key, agent);
  }
  return agent;
}

const agents = new Map<string, Agent>();
const agentsByLookup = new WeakMap<LookupFunction, Map<string, Agent>>();
