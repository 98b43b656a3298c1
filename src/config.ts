/**
 * Home and config resolution, once (DESIGN.md section 2):
 * defaults <- config file <- environment <- flags.
 */
import { isPlainObject } from "./util/json.ts";
import { once } from "./util/once.ts";
import { chmodSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { z } from "zod";
import { ZeroDbError } from "./errors.ts";
import { MAX_INLINE_BYTES_DEFAULT, OBJECT_MAX_BYTES_DEFAULT } from "./limits.ts";
import { TENANT_RE, tenantSchema } from "./schema/tenant.ts";
import { zod } from "./schema/zod.ts";
import { parseInput } from "./schema/parse.ts";
import { type PrivatePath, guardPrivatePaths } from "./util/private-path.ts";

/** The config file's schema: every key named, unknown keys refused. */
function buildConfigFileSchema() {
  const s = zod();
  return s.strictObject({
    data_dir: s.string().min(1).optional(),
    url: s.url({ protocol: /^https?$/ }).optional(),
    // A team server's store in PostgreSQL (DESIGN.md 12); the data dir then keeps only object bytes.
    database: s.url({ protocol: /^postgres(ql)?$/ }).optional(),
    // The one tenant rule (issue 15): the looser min(1).max(64) let a name through that no store accepts.
    tenant: tenantSchema().optional(),
    token_file: s.string().min(1).optional(),
    object_roots: s.array(s.string().min(1)).optional(),
    max_inline_bytes: s
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .optional(),
    max_object_bytes: s.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    spill_root: s.string().min(1).optional(),
    redact: s.boolean().optional(),
    capture: s
      .strictObject({
        enabled: s.boolean().optional(),
        redact: s.boolean().optional(),
        max_entries_per_run: s.number().int().min(1).max(64).optional(),
      })
      .optional(),
    // The team server `zerodb sync` shares this store through (DESIGN.md 16); the store itself stays local.
    sync: s.strictObject({ url: s.url({ protocol: /^https?$/ }), token_file: s.string().min(1) }).optional(),
  });
}
export type ConfigFile = z.infer<ReturnType<typeof buildConfigFileSchema>>;

/** The config file's schema, built on first use: most runs have no config file, and building it costs every start. */
export const configFileSchema = once(buildConfigFileSchema);

/** The keys plainlyGoodConfig judges, each with the schema's rule for it. */
const PLAIN_KEYS: Record<string, (v: unknown) => boolean> = {
  data_dir: (v) => typeof v === "string" && v.length >= 1,
  token_file: (v) => typeof v === "string" && v.length >= 1,
  spill_root: (v) => typeof v === "string" && v.length >= 1,
  tenant: (v) => typeof v === "string" && TENANT_RE.test(v),
  object_roots: (v) => Array.isArray(v) && v.every((r) => typeof r === "string" && r.length >= 1),
  max_inline_bytes: (v) => Number.isSafeInteger(v) && (v as number) >= 1024 && (v as number) <= 64 * 1024 * 1024,
  max_object_bytes: (v) => Number.isSafeInteger(v) && (v as number) >= 1,
  redact: (v) => typeof v === "boolean",
  capture: (v) => isPlainObject(v) && Object.entries(v).every(([k, x]) => Object.hasOwn(PLAIN_CAPTURE, k) && PLAIN_CAPTURE[k]!(x)),
};
const PLAIN_CAPTURE: Record<string, (v: unknown) => boolean> = {
  enabled: (v) => typeof v === "boolean",
  redact: (v) => typeof v === "boolean",
  max_entries_per_run: (v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 64,
};

/**
 * True only when the schema accepts `v` unchanged: every key one a local
 * store's config uses, each of its type and in its range (checked against the
 * schema in test/schema/config-plain.test.ts). Such a file is taken as is, so a hook
 * with capture configured evaluates no zod (issue 32); anything else (url,
 * database, sync, or any doubt) goes to the schema, which accepts it or names
 * the key.
 */
export function plainlyGoodConfig(v: unknown): v is ConfigFile {
  return isPlainObject(v) && Object.entries(v).every(([k, x]) => Object.hasOwn(PLAIN_KEYS, k) && PLAIN_KEYS[k]!(x));
}

/** What the flags of DESIGN.md 6.3 may set. */
export interface ConfigFlags {
  home?: string;
  dataDir?: string;
  url?: string;
  database?: string;
  tenant?: string;
  tokenFile?: string;
  config?: string;
}

/** The resolved configuration every command works from. */
export interface Config {
  home: string;
  configFile: string;
  file: ConfigFile;
  dataDir: string;
  url?: string;
  /** postgres:// URL of the store's database (`--database`, ZERODB_DATABASE, config `database`); unset: SQLite in the data dir. */
  database?: string;
  tenant?: string;
  tokenFile?: string;
  /** The token itself when it came from ZERODB_TOKEN. */
  token?: string;
  objectRoots: string[];
  maxInlineBytes: number;
  maxObjectBytes: number;
  spillRoot: string;
  captureEnabled: boolean;
  /** Capture takes secrets out of transcripts (`capture.redact`, else `redact`; default true). */
  redact: boolean;
  /** Every write through the store takes secrets out (`redact`, default true). */
  redactWrites: boolean;
}

type Env = Record<string, string | undefined>;

/** The per-user home directory of DESIGN.md section 2 (not created here). */
export function resolveHome(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const set = (v: string | undefined) => (v !== undefined && v !== "" ? v : undefined);
  const explicit = set(env.ZERODB_HOME);
  if (explicit) return resolve(explicit);
  const home = set(env.HOME) ?? set(env.USERPROFILE) ?? homedir();
  if (platform === "darwin") return join(home, "Library", "Application Support", "zerodb");
  if (platform === "win32") return join(set(env.LOCALAPPDATA) ?? join(home, "AppData", "Local"), "zerodb");
  const xdg = set(env.XDG_DATA_HOME);
  return xdg ? join(resolve(xdg), "zerodb") : join(home, ".local", "share", "zerodb");
}

/**
 * Creates a directory (and parents) with mode 0700, tightening it when it is
 * new. A file in its place (or on its path) is the caller's `field` to fix:
 * a clear error, never an internal one (I10).
 */
export function ensurePrivateDir(dir: string, field = "home"): void {
  let existed = true;
  try {
    existed = statSync(dir).isDirectory();
  } catch {
    existed = false;
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "EEXIST" || code === "ENOTDIR") throw new ZeroDbError("invalid_input", `${field}: ${dir} is not a directory`, { field, cause: err });
    throw new ZeroDbError("unavailable", `${field}: cannot create ${dir} (${code ?? "error"})`, { field, cause: err });
  }
  // mkdir's mode is filtered by the umask; set it explicitly (the umask is not trusted).
  if (!existed) chmodSync(dir, 0o700);
}

/** Reads and validates a config file; a missing file is an empty config. */
export function readConfigFile(path: string): ConfigFile {
  // A config another user can write could point url, data_dir or spill_root at that user (issue 14, item 3).
  // It holds no secret, so a readable one is left for doctor to report rather than changed under the user.
  guardPrivatePaths([configPath(path)], { tighten: false });
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return {};
    throw new ZeroDbError("invalid_input", `cannot read the config file ${path}`, { field: "config", cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? `: ${err.message}` : "";
    throw new ZeroDbError("invalid_input", `the config file ${path} is not valid JSON${why}`, { field: "config" });
  }
  try {
    // The prefix makes every message name the key as written: "config.max_inline_bytes: ...".
    return plainlyGoodConfig(raw) ? raw : parseInput(configFileSchema(), raw, "config");
  } catch (err) {
    const e = err as ZeroDbError;
    throw new ZeroDbError("invalid_input", `${e.message} (in ${path})`, { field: e.field ?? "config" });
  }
}

/** Where resolveConfig reads from besides the flags. */
export interface ResolveOptions {
  /** The environment (default process.env). */
  env?: Env;
  /** The directory relative paths resolve against (default process.cwd()). */
  cwd?: string;
  /** Stands in for the config file (doctor goes on with `{}` after reporting a bad one). */
  fileOverride?: ConfigFile;
}

/** Resolves the configuration: defaults <- file <- environment <- flags. */
export function resolveConfig(flags: ConfigFlags = {}, opts: ResolveOptions = {}): Config {
  const { env = process.env, cwd = process.cwd(), fileOverride } = opts;
  const home = flags.home ? resolve(cwd, flags.home) : resolveHome(env);
  const configFile = flags.config ? resolve(cwd, flags.config) : join(home, "config.json");
  const file = fileOverride ?? readConfigFile(configFile);
  const nonEmpty = (v: string | undefined) => (v !== undefined && v !== "" ? v : undefined);
  const dataDir = flags.dataDir ?? nonEmpty(env.ZERODB_DATA_DIR) ?? file.data_dir;
  const tokenFile = flags.tokenFile ?? file.token_file;
  const inHome = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  return {
    home,
    configFile,
    file,
    dataDir: dataDir ? inHome(dataDir) : join(home, "data"),
    url: flags.url ?? nonEmpty(env.ZERODB_URL) ?? file.url,
    database: flags.database ?? nonEmpty(env.ZERODB_DATABASE) ?? file.database,
    tenant: flags.tenant ?? file.tenant,
    tokenFile: tokenFile ? inHome(tokenFile) : undefined,
    token: nonEmpty(env.ZERODB_TOKEN),
    objectRoots: (file.object_roots ?? []).map(inHome),
    maxInlineBytes: file.max_inline_bytes ?? MAX_INLINE_BYTES_DEFAULT,
    maxObjectBytes: file.max_object_bytes ?? OBJECT_MAX_BYTES_DEFAULT,
    spillRoot: file.spill_root ? inHome(file.spill_root) : join(home, "spill"),
    captureEnabled: file.capture?.enabled ?? false,
    redact: file.capture?.redact ?? file.redact ?? true,
    redactWrites: file.redact ?? true,
  };
}

/** The fixed subdirectories of a home (DESIGN.md section 2); `capture` holds remote capture cursors. */
export const HOME_SUBDIRS = ["data", "spill", "tokens", "logs", "capture"] as const;

/** The config file as a kept path: an administrator's root-owned config is accepted. */
export function configPath(path: string): PrivatePath {
  return { path, kind: "file", label: "config file", setting: "--config", rootMayOwn: true };
}

/** The home as a kept path; its parent is checked too (whoever can rename the home can swap it). */
export function homePath(home: string): PrivatePath {
  return { path: home, kind: "dir", label: "home", setting: "ZERODB_HOME or --home", parent: true };
}

/** The home and its subdirectories as kept paths. */
export function homePaths(home: string): PrivatePath[] {
  return [
    homePath(home),
    ...HOME_SUBDIRS.map((sub): PrivatePath => ({ path: join(home, sub), kind: "dir", label: `${sub} dir`, setting: "ZERODB_HOME or --home" })),
  ];
}

/**
 * Creates the home and its fixed subdirectories, all 0700. Each existing one
 * is checked first (issue 14, item 3): another user's, or one others can
 * write to, is refused before anything is created; a readable one is tightened.
 */
export function ensureHome(config: Config): void {
  guardPrivatePaths(homePaths(config.home));
  ensurePrivateDir(config.home);
  for (const sub of ["data", "spill", "tokens", "logs"]) ensurePrivateDir(join(config.home, sub));
}
