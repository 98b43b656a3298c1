/**
 * `zerodb doctor` (DESIGN.md 7.1): every check in order, one line each. A
 * check that cannot run because an earlier one failed says so instead of
 * failing twice.
 */
import type { Memory, Store } from "../store/types.ts";
import { captureBehind, captureState, hooksCheck, retentionCheck } from "./capture.ts";
import { harnessChecks } from "./harnesses.ts";
import { filesCheck, homeCheck } from "./home.ts";
import { mcpCheck } from "./mcp.ts";
import { serverCheck } from "./server.ts";
import { cleanScratch, objectCheck, roundTripCheck, scratchTenant, storeCheck } from "./store.ts";
import { type Check, type DoctorContext, check } from "./types.ts";

/** The whole report: ok is false when any check failed. */
export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

/** Runs every check; `first` holds checks made before (the config file's). */
export async function runDoctor(ctx: DoctorContext, opts: { openStore: () => Promise<Store>; first?: Check[] }): Promise<DoctorReport> {
  const checks: Check[] = [...(opts.first ?? []), homeCheck(ctx), filesCheck(ctx)];
  const { check: store, store: opened } = await storeCheck(ctx, opts.openStore);
  checks.push(store);
  if (opened) {
    let memory: Memory | undefined;
    try {
      memory = opened.memory(scratchTenant());
      const trip = await roundTripCheck(ctx, memory);
      const objects = await objectCheck(ctx, memory);
      checks.push(trip, objects);
      if (trip.status !== "pass" || objects.status !== "pass") await cleanScratch(memory);
    } finally {
      opened.close();
    }
  } else {
    checks.push(check("round trip", "warn", "not run: the store check failed"), check("objects", "warn", "not run: the store check failed"));
  }
  checks.push(await mcpCheck(ctx));
  checks.push(...harnessChecks(ctx));
  const capture = captureState(ctx);
  checks.push(hooksCheck(capture));
  if (capture.on) checks.push(retentionCheck(capture, opened ? await captureBehind(ctx) : { error: "the store check failed" }));
  checks.push(await serverCheck(ctx));
  return { ok: checks.every((c) => c.status !== "fail"), checks };
}
