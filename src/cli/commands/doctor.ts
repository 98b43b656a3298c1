import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Config, ensureHome, resolveConfig } from "../../config.ts";
import { toZeroDbError } from "../../errors.ts";
import { type DoctorReport, type ScratchStore, runDoctor } from "../../doctor/run.ts";
import { type Check, check } from "../../doctor/types.ts";
import { selfCommand } from "../../harness/index.ts";
import { zcommand } from "../command.ts";
import { harnessContext } from "../connect-common.ts";
import { configFrom, openLocalStore } from "../context.ts";
import type { SharedFlags } from "../args.ts";
import type { Store } from "../../store/types.ts";
import { databaseArg } from "../args.ts";

/** The config the flags name; a bad config file is a failed check, and doctor goes on with defaults. */
function doctorConfig(args: SharedFlags): { config: Config; first: Check } {
  try {
    const config = configFrom(args);
    return {
      config,
      first: check("config", "pass", existsSync(config.configFile) ? `${config.configFile} is valid` : `no ${config.configFile}: defaults apply`),
    };
  } catch (err) {
    const flags = { home: args.home, dataDir: args["data-dir"], url: args.url, tenant: args.tenant, tokenFile: args["token-file"], config: args.config };
    const config = resolveConfig(flags, { fileOverride: {} });
    const e = toZeroDbError(err);
    const fix = e.code === "unsafe_path" ? "see the fix of the files check below" : `edit ${config.configFile} (see README: config.json)`;
    return { config, first: check("config", "fail", e.message, fix) };
  }
}

/** The shared flags that select the store, passed on to the `zerodb mcp` doctor starts. */
function storeArgs(args: SharedFlags): string[] {
  const out: string[] = [];
  for (const name of ["data-dir", "config"] as const) {
    const v = args[name];
    if (typeof v === "string") out.push(`--${name}`, v);
  }
  return out;
}

/**
 * A fresh store for the write checks, next to the real data dir (the same
 * file system, so a full disk or a read-only mount still shows), or in the
 * OS temp dir when that parent cannot take it; deleted when disposed.
 */
async function openScratch(config: Config): Promise<ScratchStore> {
  let dir: string;
  try {
    dir = mkdtempSync(join(dirname(config.dataDir), ".zerodb-doctor-"));
  } catch {
    dir = mkdtempSync(join(tmpdir(), "zerodb-doctor-"));
  }
  try {
    const store = await openLocalStore({ ...config, dataDir: join(dir, "data") });
    return {
      store,
      dispose() {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

const MARK = { pass: "ok  ", warn: "warn", fail: "FAIL" } as const;

/**
 * Every check for the store and home the flags name. `store`: one this
 * process has open already (`zerodb ui`), checked in place and left open;
 * otherwise the store is opened and closed. The write round trips run in a
 * scratch store either way, so the user's store gets no record (issue 17).
 */
export async function doctorReport(args: SharedFlags, opts: { store?: Store } = {}): Promise<DoctorReport> {
  const { config, first } = doctorConfig(args);
  // A missing home is created (0700) like every command does; an existing one is checked as it is.
  if (!existsSync(config.home)) {
    try {
      ensureHome(config);
    } catch {
      // The home check says why (a parent another user can change, ...).
    }
  }
  const ctx = { config, harness: harnessContext(), self: selfCommand(process.execPath, Bun.main), storeArgs: storeArgs(args), cwd: process.cwd() };
  const held = opts.store;
  const openStore = held ? async (): Promise<Store> => ({ ...held, close() {} }) : () => openLocalStore(config);
  // A shared database gets no scratch store: its write round trips would be another machine's data too.
  return runDoctor(ctx, { openStore, ...(config.database ? {} : { openScratch: () => openScratch(config) }), first: [first] });
}

/** `zerodb doctor`: every check of DESIGN.md 7.1, one line each; exit 1 on any failure. */
export default zcommand({
  meta: { name: "doctor", description: "Check the home, the store, the MCP server, harness registrations, hooks and the server; print a fix for each failure" },
  args: { ...databaseArg },
  run: (args) => doctorReport(args),
  human: (r: DoctorReport) => {
    const width = Math.max(...r.checks.map((c) => c.name.length));
    const lines = r.checks.map((c) => `${MARK[c.status]}  ${c.name.padEnd(width)}  ${c.detail}${c.fix ? `\n      ${" ".repeat(width)}  fix: ${c.fix}` : ""}`);
    const failed = r.checks.filter((c) => c.status === "fail").length;
    const warned = r.checks.filter((c) => c.status === "warn").length;
    lines.push(r.ok ? `all checks passed${warned ? ` (${warned} warning${warned > 1 ? "s" : ""})` : ""}` : `${failed} check(s) failed`);
    return lines.join("\n");
  },
  exitCode: (r: DoctorReport) => (r.ok ? 0 : 1),
});
