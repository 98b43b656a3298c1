/**
 * Finding the token for remote mode (DESIGN.md section 2): `ZERODB_TOKEN`,
 * else `--token-file`, else the config's `token_file`, else the tenant's file
 * `<home>/tokens/<tenant>` when `--tenant` (or the config's tenant) names one.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Config, homePath } from "../config.ts";
import { ZeroDbError } from "../errors.ts";
import { checkTenant } from "../schema/common.ts";
import { type PrivatePath, guardPrivatePaths } from "../util/private-path.ts";

/**
 * A token file as a kept path. Another user who can write it could swap in
 * a token of their own tenant and so receive what this user stores (issue
 * 14, item 3); an administrator's root-owned file is accepted.
 */
export function tokenFilePath(path: string): PrivatePath {
  return { path, kind: "file", label: "token file", setting: "--token-file or token_file", rootMayOwn: true };
}

/** Reads a token file: one token, surrounding whitespace ignored. */
export function readTokenFile(path: string, field = "token_file"): string {
  guardPrivatePaths([tokenFilePath(path)]);
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
  // The name becomes a path: `--tenant ../x` must not reach a file outside the tokens dir.
  return config.tenant ? join(config.home, "tokens", checkTenant(config.tenant)) : undefined;
}

/** The token remote mode uses; a clear `unauthorized` error when there is none. */
export function resolveToken(config: Config): string {
  if (config.token) return config.token;
  if (config.tokenFile) return readTokenFile(config.tokenFile);
  const byTenant = tenantTokenFile(config);
  if (byTenant) guardPrivatePaths([homePath(config.home), { path: dirname(byTenant), kind: "dir", label: "tokens dir", setting: "ZERODB_HOME or --home" }]);
  if (byTenant && existsSync(byTenant)) return readTokenFile(byTenant);
  throw new ZeroDbError(
    "unauthorized",
    "remote mode (--url) needs a token: set ZERODB_TOKEN, pass --token-file FILE, set token_file in the config, or keep it in <home>/tokens/<tenant> with --tenant (`zerodb token create --tenant NAME --out FILE` makes one)",
  );
}
