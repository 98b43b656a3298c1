/**
 * isPlainFactGet (src/schema/common.ts) lets the SQLite store answer a
 * fact_get without building the operations' schemas: it must never accept
 * what FactGetInput refuses, and must accept the inputs capture sends.
 */
import { expect, test } from "bun:test";
import { isPlainFactGet } from "../../src/schema/common.ts";
import { FactGetInput } from "../../src/schema/ops.ts";

const CASES: unknown[] = [
  { key: "capture/source/0123abcd" },
  { key: "k" },
  { key: "" },
  { key: "/lead" },
  { key: "trail/" },
  { key: "a\u0000b" },
  { key: "x".repeat(255) },
  { key: "x".repeat(256) },
  { key: "\ud800" },
  { key: 7 },
  { key: "k", extra: 1 },
  {},
  [],
  null,
  "k",
  Object.assign(Object.create({ inherited: 1 }), { key: "k" }),
];

test("a plainly good fact_get is one FactGetInput accepts; capture's identity keys are plainly good", () => {
  for (const input of CASES) {
    if (isPlainFactGet(input)) expect({ input, ok: FactGetInput.safeParse(input).success }).toEqual({ input, ok: true });
  }
  expect(isPlainFactGet({ key: "capture/source/0123abcd" })).toBe(true);
  expect(CASES.filter((c) => FactGetInput.safeParse(c).success).every(isPlainFactGet)).toBe(true);
});
