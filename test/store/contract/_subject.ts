/** What the contract runs against, and the small helpers every case file shares. */
import { expect, test } from "bun:test";
import type { CaptureCursors, Memory, Store, WorkTrace } from "../../../src/store/types.ts";

/** What a subject may lack, each named so a skip says which and why. */
export type Capability = "capture" | "trace" | "transfer";

/** A fresh, empty store seen as two tenants, disposed after one case. */
export interface Subject {
  /** Tenant `alice`'s memory and tenant `bob`'s, of the same store. */
  a: Memory;
  b: Memory;
  /** The capture cursors of each tenant, when the subject offers them. */
  capture?: { a: CaptureCursors; b: CaptureCursors };
  /** The store's work counter (Store.trace), when the subject offers it. */
  trace?: () => WorkTrace;
  /** The whole store's tape export and import (`zerodb export` / `import`), when the subject offers them. */
  transfer?: Pick<Store, "exportTape" | "importTape" | "check">;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Opens a fresh subject; `lacks` says what it cannot offer and why (each such case is skipped with the reason). */
export interface Factory {
  (): Promise<Subject>;
  lacks?: Partial<Record<Capability, string>>;
}

/** A case: a fresh subject per run, disposed afterwards; skipped with the reason when the subject lacks `needs`. */
export function contractTest(factory: Factory, name: string, fn: (s: Subject) => Promise<void>, opts: { needs?: Capability } = {}): void {
  const reason = opts.needs ? factory.lacks?.[opts.needs] : undefined;
  if (reason !== undefined) {
    test.skip(`${name} [skipped: no ${opts.needs}: ${reason}]`, () => {});
    return;
  }
  test(name, async () => {
    await using s = await factory();
    await fn(s);
  });
}

/** The code and field of the error a call fails with; fails the case when the call succeeds. */
export async function failure(p: Promise<unknown>): Promise<{ code: string; field?: string }> {
  const err = await p.then(
    (r) => {
      throw new Error(`expected a failure, got ${JSON.stringify(r)}`);
    },
    (e: unknown) => e as { code?: string; field?: string; message?: string },
  );
  expect(typeof err.code, `a typed error, not ${String(err)}`).toBe("string");
  return err.field === undefined ? { code: err.code! } : { code: err.code!, field: err.field };
}

/** The contents of a session's turns, in order. */
export async function contents(m: Memory, session: string): Promise<string[]> {
  return (await m.read({ session, limit: 1000 })).turns.map((t) => t.content);
}

/** Appends one note per content to a session; returns their LSNs. */
export async function notes(m: Memory, session: string, ...texts: string[]): Promise<number[]> {
  return (await m.append({ session, entries: texts.map((content) => ({ role: "note" as const, content })) })).entries.map((e) => e.lsn);
}

/** The counts stats gives, without sizes that depend on the engine's layout. */
export async function counts(m: Memory): Promise<{ last_lsn: number; turns: number; sessions: number; facts: number; links: number; objects: number }> {
  const s = await m.stats();
  return { last_lsn: s.last_lsn, turns: s.turns.count, sessions: s.sessions, facts: s.facts.count, links: s.links.count, objects: s.objects.count };
}
