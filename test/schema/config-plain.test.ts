/**
 * readConfigFile (src/config.ts) takes a plainly good config file as it is,
 * without zod, and hands everything else to the config file schema: the
 * plain check must never accept what the schema refuses or would change,
 * and a refusal is still the schema's own error, naming the key.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { configFileSchema, plainlyGoodConfig, readConfigFile } from "../../src/config.ts";
import { tempDir } from "../helpers.ts";

/** Configs a local store's users write, every key the plain check judges at least once. */
const BASES: Record<string, unknown>[] = [
  { capture: { enabled: true } },
  { capture: { enabled: false, redact: true, max_entries_per_run: 64 }, redact: false },
  { data_dir: "/srv/zerodb", tenant: "team-a.b_c", token_file: "tokens/t", spill_root: "spill", object_roots: ["/w", "docs"] },
  { max_inline_bytes: 1024, max_object_bytes: 1 },
  { max_inline_bytes: 64 * 1024 * 1024, max_object_bytes: Number.MAX_SAFE_INTEGER },
  {},
];
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  64,
  65,
  1023,
  1024,
  2 ** 26,
  2 ** 26 + 1,
  1.5,
  -1,
  2 ** 60,
  "",
  "x",
  "Upper",
  "a".repeat(65),
  [],
  [""],
  ["x"],
  {},
  { enabled: true },
  { enabled: 1 },
];

/** Every config one change away from a base: a key set to each value, removed, or added (in capture too). */
function variants(): unknown[] {
  const out: unknown[] = [...VALUES];
  const keys = [
    "data_dir",
    "url",
    "database",
    "tenant",
    "token_file",
    "object_roots",
    "max_inline_bytes",
    "max_object_bytes",
    "spill_root",
    "redact",
    "capture",
    "sync",
    "extra",
  ];
  for (const base of BASES) {
    out.push(base);
    for (const key of keys) {
      for (const v of VALUES) {
        const copy: Record<string, unknown> = structuredClone(base);
        if (v === undefined) delete copy[key];
        else copy[key] = v;
        out.push(copy);
      }
    }
    const capture = base.capture as Record<string, unknown> | undefined;
    if (capture) {
      for (const key of ["enabled", "redact", "max_entries_per_run", "extra"]) {
        for (const v of VALUES) out.push({ ...base, capture: { ...capture, [key]: v } });
      }
    }
  }
  return out;
}

describe("plainlyGoodConfig", () => {
  test("accepts only what the schema accepts unchanged, and the configs users write", () => {
    const all = variants();
    const wrong = all.filter((v) => {
      if (!plainlyGoodConfig(v)) return false;
      const parsed = configFileSchema().safeParse(v);
      return !parsed.success || !Bun.deepEquals(parsed.data, v, true);
    });
    expect(all.length).toBeGreaterThan(1000);
    expect(wrong.map((v) => JSON.stringify(v))).toEqual([]);
    for (const base of BASES) expect(plainlyGoodConfig(base)).toBe(true);
    // The check is not the schema: what it does not judge goes there.
    expect(plainlyGoodConfig({ url: "http://127.0.0.1:7077" })).toBe(false);
    expect(plainlyGoodConfig({ sync: { url: "http://127.0.0.1:7077", token_file: "t" } })).toBe(false);
  });

  test("a file the plain check passes over is still judged by the schema, naming the key", () => {
    using tmp = tempDir();
    const file = join(tmp.path, "config.json");
    writeFileSync(file, JSON.stringify({ capture: { enabled: "yes" } }), { mode: 0o600 });
    expect(() => readConfigFile(file)).toThrow(/config\.capture\.enabled/);
    writeFileSync(file, JSON.stringify({ capture: { enabled: true }, url: "http://127.0.0.1:7077" }), { mode: 0o600 });
    expect(readConfigFile(file)).toEqual({ capture: { enabled: true }, url: "http://127.0.0.1:7077" });
    writeFileSync(file, JSON.stringify({ max_inline_bytes: 1000 }), { mode: 0o600 });
    expect(() => readConfigFile(file)).toThrow(/config\.max_inline_bytes/);
  });
});
