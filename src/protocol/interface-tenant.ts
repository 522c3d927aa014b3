import { isRecord } from '../support/records.js';

/**
 * A client copies its interface's tenant (AgentInterface.tenant) into every request (spec §8.3.2),
 * so an agent that serves only named tenants is not sent requests under none. One rule for every
 * binding of the client and the suite: an empty tenant is none, and a request that names its own
 * tenant keeps it.
 */

/** The interface's tenant, or undefined when it names none (absent or ''). */
export function interfaceTenant(tenant: string | undefined): string | undefined {
  return tenant === '' ? undefined : tenant;
}

/** Whether a request's `tenant` member names a tenant: anything but absent or ''. */
export function namesTenant(requested: unknown): boolean {
  return requested !== undefined && requested !== '';
}

/** `params` under the interface's tenant when they name none; anything that is not an object is left as it is. */
export function withInterfaceTenant<T>(params: T, tenant: string | undefined): T {
  const scoped = interfaceTenant(tenant);
  if (scoped === undefined || !isRecord(params) || namesTenant(params['tenant'])) return params;
  return { ...params, tenant: scoped };
}
