import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { DEFAULTS } from '../../generated/hub/defaults.js';
import type { PushDestinationSettings } from '../../generated/hub/types.js';
import { cidrContains, classifyAddress, parseCidr, type AddressClass, type Cidr } from './ip-ranges.js';

/**
 * Where the hub and the client may send requests: the one destination policy of every outbound
 * request (client calls, outbound connections, push webhooks). A card fetched from the internet
 * chooses the URLs the client calls next, and a push config chooses where webhooks go, so without
 * this a remote party could point us at the cloud metadata service or at hosts on our private
 * network (SSRF).
 */
export interface UrlPolicy {
  /** URL schemes the client may use. Default `['http', 'https']`. */
  readonly allowedSchemes?: readonly string[];
  /** When set, the only hosts the client may contact: exact names (`agent.example.com`, `10.0.0.5`) and `*.example.com` wildcards (subdomains only). */
  readonly allowedHosts?: readonly string[];
  /** Private and reserved targets: 10/8, 172.16/12, 192.168/16, 100.64/10, the rest of 0/8, fc00::/7, multicast, documentation and benchmarking ranges. Default false. */
  readonly allowPrivate?: boolean;
  /** Link-local targets: 169.254/16 (cloud metadata) and fe80::/10. Default false. */
  readonly allowLinkLocal?: boolean;
  /** Loopback targets: 127/8, ::1, and 0.0.0.0 and :: (connecting to them reaches this machine). Default true, so agents on this machine work during development. */
  readonly allowLoopback?: boolean;
  /**
   * Address ranges (`10.20.0.0/16`, `fd00::/8`, or one address) that may be reached even though
   * they are private, loopback or link-local; an IPv6 form carrying an IPv4 address in a range
   * counts as in it. A range that does not parse throws DestinationPolicyError.
   */
  readonly allowedCidrs?: readonly string[];
  /**
   * Where the policy is configured, for the hint in refusals ("set urlPolicy.allowPrivate: true
   * to allow it"). Default `urlPolicy`.
   */
  readonly configuredAt?: string;
}

export interface ResolvedUrlPolicy {
  readonly allowedSchemes: readonly string[];
  readonly allowedHosts: readonly string[] | undefined;
  readonly allowPrivate: boolean;
  readonly allowLinkLocal: boolean;
  readonly allowLoopback: boolean;
  /** Canonical forms of the allowed ranges, e.g. `10.20.0.0/16`. */
  readonly allowedCidrs: readonly string[];
  readonly configuredAt: string;
}

/** A policy that cannot be used as written: a range that does not parse. */
export class DestinationPolicyError extends Error {
  /** The member at fault, e.g. `push.destinations.allowedCidrs[1]`. */
  readonly field: string;

  constructor(message: string, field: string) {
    super(message);
    this.name = 'DestinationPolicyError';
    this.field = field;
  }
}

const URL_POLICY_DEFAULTS = DEFAULTS.UrlPolicySettings;

/** The parsed ranges of each resolved policy. Being a key also marks a policy as resolved: resolving it again (every check does) returns it as it is. */
const parsedRanges = new WeakMap<ResolvedUrlPolicy, readonly Cidr[]>();

/** The defaults of spec/hub/config.schema.json's UrlPolicySettings: any host, no private or link-local address. */
export const DEFAULT_URL_POLICY: ResolvedUrlPolicy = resolveUrlPolicy({});

/**
 * The policy of push webhooks: PushDestinationSettings (hub config `push.destinations`) over its
 * defaults, which are stricter than the client's: https only, no loopback, private or link-local
 * address. Throws DestinationPolicyError for a range that does not parse.
 */
export function pushDestinationPolicy(settings: PushDestinationSettings = {}): ResolvedUrlPolicy {
  return resolveUrlPolicy({ ...DEFAULTS.PushDestinationSettings, ...settings, configuredAt: 'push.destinations' });
}

/** The policy member that would have allowed what was refused; `notAUrl` when nothing would (the text is no URL). */
export type UrlPolicyRule = 'notAUrl' | 'allowedSchemes' | 'allowedHosts' | 'allowPrivate' | 'allowLinkLocal' | 'allowLoopback';

/** A request refused by the URL policy, before any connection was made to the refused target. */
export class UrlPolicyError extends Error {
  /** Lets the error pass through net/undici lookup callbacks as a Node system-style error. */
  readonly code = 'ERR_URL_POLICY';
  /** The URL or hostname that was refused. */
  readonly target: string;
  /** The refused IP address, when an address (literal or resolved) was the problem. */
  readonly address: string | undefined;
  readonly rule: UrlPolicyRule;

  constructor(message: string, details: { target: string; rule: UrlPolicyRule; address?: string }) {
    super(message);
    this.name = 'UrlPolicyError';
    this.target = details.target;
    this.rule = details.rule;
    this.address = details.address;
  }
}

/** The policy with every default filled in and its ranges parsed; throws DestinationPolicyError for a bad range. */
export function resolveUrlPolicy(policy: UrlPolicy = {}): ResolvedUrlPolicy {
  if (parsedRanges.has(policy as ResolvedUrlPolicy)) return policy as ResolvedUrlPolicy;
  const configuredAt = policy.configuredAt ?? 'urlPolicy';
  const ranges = (policy.allowedCidrs ?? []).map((text, index) => {
    const parsed = parseCidr(text);
    if (parsed.ok) return parsed.cidr;
    const field = `${configuredAt}.allowedCidrs[${index}]`;
    throw new DestinationPolicyError(`${field}: ${parsed.problem}`, field);
  });
  const resolved: ResolvedUrlPolicy = Object.freeze({
    allowedSchemes: Object.freeze(
      (policy.allowedSchemes ?? URL_POLICY_DEFAULTS.allowedSchemes).map((scheme) => scheme.toLowerCase().replace(/:$/, '')),
    ),
    allowedHosts: policy.allowedHosts === undefined ? undefined : Object.freeze(policy.allowedHosts.map(normaliseHost)),
    allowPrivate: policy.allowPrivate ?? URL_POLICY_DEFAULTS.allowPrivate,
    allowLinkLocal: policy.allowLinkLocal ?? URL_POLICY_DEFAULTS.allowLinkLocal,
    allowLoopback: policy.allowLoopback ?? URL_POLICY_DEFAULTS.allowLoopback,
    allowedCidrs: Object.freeze(ranges.map((range) => range.cidr)),
    configuredAt,
  });
  parsedRanges.set(resolved, Object.freeze(ranges));
  return resolved;
}

/** What decides whether a connection may be made once the URL passed: the address classes and ranges allowed. */
export function addressPolicyKey(policy: UrlPolicy): string {
  const effective = resolveUrlPolicy(policy);
  return [effective.allowPrivate, effective.allowLinkLocal, effective.allowLoopback, ...effective.allowedCidrs].join('/');
}

/**
 * Checks what the URL itself says: scheme, host allowlist and IP-literal hosts (after the
 * WHATWG parser has normalised forms such as `0x7f.1` or `[::ffff:a00:1]`). Hostnames are
 * checked again at connect time, address by address, by `guardLookup`.
 */
export function checkUrl(url: string | URL, policy: UrlPolicy = DEFAULT_URL_POLICY): URL {
  const effective = resolveUrlPolicy(policy);
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    throw new UrlPolicyError(`URL policy: ${String(url)} is not a URL`, { target: String(url), rule: 'notAUrl' });
  }
  const href = parsed.href;
  const scheme = parsed.protocol.replace(/:$/, '').toLowerCase();
  if (!effective.allowedSchemes.includes(scheme)) {
    throw new UrlPolicyError(
      `URL policy: ${href} is refused: scheme "${scheme}" is not in ${effective.configuredAt}.allowedSchemes (${effective.allowedSchemes.join(', ')})`,
      { target: href, rule: 'allowedSchemes' },
    );
  }
  const host = normaliseHost(parsed.hostname);
  if (effective.allowedHosts !== undefined && !effective.allowedHosts.some((pattern) => hostMatches(pattern, host))) {
    throw new UrlPolicyError(`URL policy: ${href} is refused: host ${host} is not in ${effective.configuredAt}.allowedHosts`, {
      target: href,
      rule: 'allowedHosts',
    });
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    // RFC 6761: these names are loopback whatever DNS says, and an injected fetch skips our lookup.
    // A range holding 127.0.0.1 lets them through here; the connect-time check still sees what they resolve to.
    if (!effective.allowLoopback && !inAllowedRange(effective, '127.0.0.1')) {
      throw refusal(href, host, { kind: 'loopback', range: 'localhost' }, 'allowLoopback', effective.configuredAt);
    }
    return parsed;
  }
  checkAddress(host, href, effective);
  return parsed;
}

/** Throws when `address` is an IP address the policy refuses; hostnames pass (they are checked after resolution). */
export function checkAddress(address: string, target: string, policy: UrlPolicy = DEFAULT_URL_POLICY): void {
  const effective = resolveUrlPolicy(policy);
  const verdict = classifyAddress(address);
  if (verdict === undefined || verdict.kind === 'public') return;
  const rule = RULE_BY_KIND[verdict.kind];
  if (!effective[rule] && !inAllowedRange(effective, address)) throw refusal(target, address, verdict, rule, effective.configuredAt);
}

const RULE_BY_KIND = { loopback: 'allowLoopback', linkLocal: 'allowLinkLocal', private: 'allowPrivate' } as const;

function inAllowedRange(policy: ResolvedUrlPolicy, address: string): boolean {
  return (parsedRanges.get(policy) ?? []).some((range) => cidrContains(range, address));
}

function refusal(target: string, address: string, verdict: AddressClass, rule: UrlPolicyRule, configuredAt: string): UrlPolicyError {
  const what = target === address ? address : `${target} (${address})`;
  return new UrlPolicyError(
    `URL policy: ${what} is refused: ${verdict.range ?? verdict.kind}; set ${configuredAt}.${rule}: true, or add its range to ${configuredAt}.allowedCidrs, to allow it`,
    {
      target,
      rule,
      address,
    },
  );
}

/**
 * Wraps a resolver so that a hostname resolving to any refused address fails the connection
 * before it is made. Running inside the connector means every connection is checked with the
 * addresses it will really use: DNS rebinding between check and connect is not possible.
 */
export function guardLookup(policy: UrlPolicy = DEFAULT_URL_POLICY, lookup: LookupFunction = dnsLookup): LookupFunction {
  const effective = resolveUrlPolicy(policy);
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const addresses = typeof address === 'string' ? [address] : address.map((entry: LookupAddress) => entry.address);
      try {
        for (const candidate of addresses) checkAddress(candidate, hostname, effective);
      } catch (refused) {
        callback(refused as UrlPolicyError, typeof address === 'string' ? '' : [], family);
        return;
      }
      callback(null, address, family);
    });
  };
}

/** The UrlPolicyError behind an error, looking through `cause` chains (fetch wraps connector errors). */
export function findUrlPolicyError(error: unknown): UrlPolicyError | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof UrlPolicyError) return current;
  }
  return undefined;
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** Lower case, no IPv6 brackets, no trailing dot: the form patterns and hosts are compared in. */
function normaliseHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/**
 * Resolves `url`'s host and checks every address it has now against the policy, for a check at
 * the time a destination is registered (a push config), so that the caller hears of a refused
 * host at once rather than from failed deliveries. Resolves to the refusal, or to undefined when
 * the host is allowed, is an IP literal (checkUrl judged those), or cannot be resolved within
 * `timeoutMs`: DNS can change, and the check at connection time stays the one that decides.
 */
export function screenHost(
  url: URL,
  policy: UrlPolicy = DEFAULT_URL_POLICY,
  options: { readonly lookup?: LookupFunction; readonly timeoutMs?: number } = {},
): Promise<UrlPolicyError | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 || host === '') return Promise.resolve(undefined);
  const effective = resolveUrlPolicy(policy);
  const lookup = options.lookup ?? dnsLookup;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), options.timeoutMs ?? 2000);
    timer.unref();
    lookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) return resolve(undefined);
      const list = typeof addresses === 'string' ? [addresses] : addresses.map((entry: LookupAddress) => entry.address);
      try {
        for (const address of list) checkAddress(address, host, effective);
        resolve(undefined);
      } catch (refused) {
        // checkAddress throws nothing else.
        resolve(refused as UrlPolicyError);
      }
    });
  });
}
