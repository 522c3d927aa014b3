import type { Capability } from '../../../generated/a2a/1.0/methods.js';
import type { AgentCard, AgentInterface } from '../../../generated/a2a/1.0/types.js';
import { isRecord } from '../../../src/support/records.js';
import type { CheckContext, FindingInput } from '../../core/check.js';

/*
 * Reading the agent card the suite resolved: interfaces, capabilities, extensions, modes, and
 * how the URLs it publishes fare. Tolerant of a malformed card, which the card checks report.
 */

/** Why a card check cannot run: no card was found and a minimal one was assumed. */
export const NO_CARD = 'no agent card was found (a minimal one was assumed), so there is no card to check';

export function interfacesOf(context: CheckContext): AgentInterface[] {
  const list = (context.target.card as { supportedInterfaces?: unknown }).supportedInterfaces;
  return Array.isArray(list) ? list.filter((entry): entry is AgentInterface => isRecord(entry)) : [];
}

export function capabilityDeclared(context: CheckContext, name: Capability): boolean {
  const capabilities = (context.target.card as { capabilities?: unknown }).capabilities;
  return isRecord(capabilities) && capabilities[name] === true;
}

export function declaredExtensions(context: CheckContext): { uri: string; required: boolean }[] {
  const capabilities = (context.target.card as { capabilities?: unknown }).capabilities;
  const list = isRecord(capabilities) && Array.isArray(capabilities['extensions']) ? (capabilities['extensions'] as unknown[]) : [];
  return list.flatMap((entry) =>
    isRecord(entry) && typeof entry['uri'] === 'string' && entry['uri'] !== ''
      ? [{ uri: entry['uri'], required: entry['required'] === true }]
      : [],
  );
}

/** Evidence for findings about the card: the request that fetched it. */
export function cardEvidence(context: CheckContext): Pick<FindingInput, 'exchange'> {
  return context.target.cardExchange ? { exchange: context.target.cardExchange } : {};
}

/** The card's input or output modes: its defaults and every skill's, each once. */
export function cardModes(card: AgentCard, which: 'input' | 'output'): string[] {
  const listed = which === 'input' ? (card.defaultInputModes as unknown) : (card.defaultOutputModes as unknown);
  const defaults = Array.isArray(listed) ? listed.filter((mode): mode is string => typeof mode === 'string') : [];
  const skillList: unknown = card.skills;
  const skills = (Array.isArray(skillList) ? (skillList as AgentCard['skills']) : []).flatMap(
    (skill) => (which === 'input' ? skill.inputModes : skill.outputModes) ?? [],
  );
  return [...new Set([...defaults, ...skills])];
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    host === '[::1]' ||
    /^\[::ffff:(127\.|7f)/.test(host)
  );
}

/**
 * How a URL the agent publishes fares against the transport-security rules (spec §7.1):
 * relative or not http(s) fails, plain http to a host that is not loopback warns.
 */
export function classifyUrl(url: unknown): { verdict: 'pass' | 'warn' | 'fail'; reason: string } {
  if (typeof url !== 'string' || url === '') return { verdict: 'fail', reason: 'no URL' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { verdict: 'fail', reason: `${url} is not an absolute URL` };
  }
  if (parsed.protocol === 'https:') return { verdict: 'pass', reason: `${url} uses https` };
  if (parsed.protocol !== 'http:') return { verdict: 'fail', reason: `${url} is not an http(s) URL` };
  if (isLoopbackHost(parsed.hostname))
    return { verdict: 'pass', reason: `${url} is plain http to a loopback host (fine for local testing)` };
  return {
    verdict: 'warn',
    reason: `${url} is plain http to ${parsed.hostname}, which is not loopback; production interfaces must use https`,
  };
}
