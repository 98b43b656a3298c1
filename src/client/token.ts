/**
 * Finding the token for remote mode (DESIGN.md section 2): `ZERODB_TOKEN`,
 * else `--token-file`, else the config's `token_file`, else the tenant's file
 * `<home>/tokens/<tenant>` when `--tenant` (or the config's tenant) names one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { ZeroDbError } from "../errors.ts";

/** Reads a token file: one token, surrounding whitespace ignored. */
export function readTokenFile(path: string, field = "token_file"): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ZeroDbError("invalid_input", `${field}: cannot read the token file ${path}`, { field, cause: err });
  }
  const token = text.trim();
  if (!/^[\x21-\x7e]{1,512}$/.test(token)) throw new ZeroDbError("invalid_input", `${field}: ${path} does not hold a token`, { field });
  return token;
}

/** The file a tenant's token is looked for in when nothing else names one. */
export function tenantTokenFile(config: Config): string | undefined {
  return config.tenant ? join(config.home, "tokens", config.tenant) : undefined;
}

/** The token remote mode uses; a clear `unauthorized` error when there is none. */
export function resolveToken(config: Config): string {
  if (config.token) return config.token;
  if (config.tokenFile) return readTokenFile(config.tokenFile);
  const byTenant = tenantTokenFile(config);
  if (byTenant && existsSync(byTenant)) return readTokenFile(byTenant);
  throw new ZeroDbError(
    "unauthorized",
    "remote mode (--url) needs a token: set ZERODB_TOKEN, pass --token-file FILE, set token_file in the config, or keep it in <home>/tokens/<tenant> with --tenant (`zerodb token create --tenant NAME --out FILE` makes one)",
  );
}
