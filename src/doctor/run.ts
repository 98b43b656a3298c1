/**
 * `zerodb doctor` (DESIGN.md 7.1): every check in order, one line each. A
 * check that cannot run because an earlier one failed says so instead of
 * failing twice.
 */
import { claudeCode } from "../harness/index.ts";
import type { Store } from "../store/types.ts";
import { captureBehind, captureState, hooksCheck, retentionCheck } from "./capture-checks.ts";
import { harnessHooksCheck, otherCaptureHooks } from "./harness-hooks.ts";
import { harnessChecks } from "./harnesses.ts";
import { filesCheck, homeCheck } from "./home.ts";
import { mcpCheck } from "./mcp.ts";
import { serverCheck } from "./server.ts";
import { objectCheck, roundTripCheck, storeCheck } from "./store.ts";
import { syncCheck } from "./sync.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

/** The whole report: ok is false when any check failed. */
export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

/** A store doctor may write to, and how to remove it. */
export interface ScratchStore {
  store: Store;
  /** Closes the store and deletes its directory. */
  dispose(): void;
}

/**
 * Runs every check; `first` holds checks made before (the config file's).
 * The user's store is only opened and checked; the write round trips run in
 * `openScratch`'s store, so a doctor run adds no record, LSN or object to the
 * user's store (issue 17, item 5); without one (a PostgreSQL database) they
 * do not run.
 */
export async function runDoctor(
  ctx: DoctorContext,
  opts: { openStore: () => Promise<Store>; openScratch?: () => Promise<ScratchStore>; first?: Check[] },
): Promise<DoctorReport> {
  const checks: Check[] = [...(opts.first ?? []), homeCheck(ctx), filesCheck(ctx)];
  const { check: store, store: opened } = await storeCheck(ctx, opts.openStore);
  checks.push(store);
  const synced = opened ? await syncCheck(ctx, opened) : undefined;
  if (synced) checks.push(synced);
  // Closed before the MCP check starts a second process on the same store.
  opened?.close();
  if (opened && opts.openScratch) checks.push(...(await scratchChecks(ctx, opts.openScratch)));
  else if (opened) {
    // A team's PostgreSQL database: a scratch store there would be the shared one.
    const detail = "not run: doctor writes nothing to a shared database (the store check above connected to it)";
    checks.push(check("round trip", "pass", detail), check("objects", "pass", detail));
  } else checks.push(check("round trip", "warn", "not run: the store check failed"), check("objects", "warn", "not run: the store check failed"));
  checks.push(await mcpCheck(ctx));
  checks.push(...harnessChecks(ctx));
  const capture = captureState(ctx);
  checks.push(hooksCheck(capture, { hooked: otherCaptureHooks(ctx), claudeInstalled: claudeCode.installed(ctx.harness) }));
  if (capture.on) {
    const behind = opened ? await captureBehind(ctx) : { error: "the store check failed" };
    checks.push(retentionCheck(capture, behind));
    const others = harnessHooksCheck(ctx, behind);
    if (others) checks.push(others);
  }
  checks.push(await serverCheck(ctx));
  return { ok: checks.every((c) => c.status !== "fail"), checks };
}

/** The write round trips, in a scratch store on the same file system as the real one. */
async function scratchChecks(ctx: DoctorContext, open: () => Promise<ScratchStore>): Promise<Check[]> {
  let scratch: ScratchStore;
  try {
    scratch = await open();
  } catch (err) {
    const detail = `cannot create a scratch store next to ${ctx.config.dataDir}: ${why(err)}`;
    return [
      check("round trip", "fail", detail, `make ${ctx.config.dataDir}'s parent directory writable`),
      check("objects", "warn", "not run: no scratch store"),
    ];
  }
  try {
    const memory = scratch.store.memory("doctor");
    return [await roundTripCheck(ctx, memory), await objectCheck(ctx, memory)];
  } finally {
    scratch.dispose();
  }
}
