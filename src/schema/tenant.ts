/**
 * The one tenant rule (issue 15): short, lowercase, safe in any path (the
 * token file `<home>/tokens/<tenant>`), header or SQL literal. Every door,
 * engine and the config file use it; nothing else restates it. Apart from
 * common.ts so that resolving the config, which every command does, builds
 * no schema of common.ts; its own schema is built on first use, so a
 * capture hook, which checks tenants by hand, builds none (issue 32).
 */
import { zod } from "./zod.ts";
import { invalid } from "../errors.ts";
import { once } from "../util/once.ts";

export const TENANT_RE = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const TENANT_RULE = "must be 1–64 characters of a-z, 0-9, '_', '.', '-', starting with a letter or digit";

/** The schema of a tenant name: 1–64 characters of a-z, 0-9, '_', '.', '-', starting with a letter or digit. */
export const tenantSchema = once(() => zod().string().regex(TENANT_RE, TENANT_RULE));

/** Checks a tenant name without zod's parse, throwing invalid_input naming `field`. */
export function checkTenant(tenant: string, field = "tenant"): string {
  if (!TENANT_RE.test(tenant)) throw invalid(field, TENANT_RULE);
  return tenant;
}
