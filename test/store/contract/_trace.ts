/** Store.trace, the optional work counter behind ZERODB_CAPTURE_TRACE. */
import { describe, expect } from "bun:test";
import { type Factory, contractTest } from "./_subject.ts";

/** The trace cases. */
export function traceCases(factory: Factory): void {
  describe("trace", () => {
    contractTest(
      factory,
      "counts every caller's work from the first call on, one shared counter, no full scan for a read by session",
      async (s) => {
        if (!s.trace) throw new Error("the factory offers a trace but gave none");
        await s.a.append({ session: "s", entries: [{ role: "note", content: "before" }] });
        const trace = s.trace();
        expect(trace).toEqual({ statements: 0, rows: 0, scans: [] });
        await s.a.append({ session: "s", entries: [{ role: "note", content: "counted" }] });
        const counted = trace.statements;
        expect(counted).toBeGreaterThan(0);
        await s.b.read({ session: "s" });
        expect(trace.statements).toBeGreaterThan(counted);
        await s.a.read({ session: "s" });
        expect(trace.rows).toBeGreaterThan(0);
        expect(s.trace()).toBe(trace);
        expect(trace.scans).toEqual([]);
      },
      { needs: "trace" },
    );
  });
}
