/**
 * One tenant rule (issue 15): schema/common.ts holds it; the config file,
 * token creation, the stores and remote mode's token lookup all use it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveToken } from "../../src/client/token.ts";
import { readConfigFile, resolveConfig } from "../../src/config.ts";
import { Tenant, checkTenant } from "../../src/schema/common.ts";
import { tokenSchemas } from "../../src/schema/tokens.ts";
import { parseInput } from "../../src/schema/parse.ts";
import { tempDir } from "../helpers.ts";

const GOOD = ["local", "a", "team-1", "x.y_z", "0", "a".repeat(64)];
const BAD = ["", "Local", "-a", ".a", "_a", "a b", "a/b", "../x", "é", "a".repeat(65)];

/** The code and field a call throws with. */
function thrown(fn: () => unknown): { code?: string; field?: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { code?: string; field?: string };
    return { code: err.code, field: err.field };
  }
  throw new Error("expected a failure");
}

describe("the tenant rule", () => {
  test("checkTenant and the zod Tenant agree on every name", () => {
    for (const t of GOOD) {
      expect(checkTenant(t)).toBe(t);
      expect(Tenant.safeParse(t).success, t).toBe(true);
    }
    for (const t of BAD) {
      expect(
        thrown(() => checkTenant(t, "where")),
        t,
      ).toEqual({ code: "invalid_input", field: "where" });
      expect(Tenant.safeParse(t).success, t).toBe(false);
    }
  });

  test("token create takes the same rule", () => {
    expect(thrown(() => parseInput(tokenSchemas().TokenCreateInput, { tenant: "Team" }))).toEqual({ code: "invalid_input", field: "tenant" });
  });

  test("config.json: a tenant outside the rule is refused naming config.tenant (the looser min 1, max 64 is gone)", () => {
    using dir = tempDir();
    const file = join(dir.path, "config.json");
    for (const tenant of ["Team", "../tokens-elsewhere", "a b"]) {
      writeFileSync(file, JSON.stringify({ tenant }), { mode: 0o600 });
      expect(
        thrown(() => readConfigFile(file)),
        tenant,
      ).toEqual({ code: "invalid_input", field: "config.tenant" });
    }
    writeFileSync(file, JSON.stringify({ tenant: "team-1" }), { mode: 0o600 });
    expect(readConfigFile(file).tenant).toBe("team-1");
  });

  test("remote mode never turns a bad --tenant into a token file path outside <home>/tokens", () => {
    using dir = tempDir();
    const home = join(dir.path, "zerodb");
    mkdirSync(join(home, "tokens"), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, "stolen"), `zdb_${"a".repeat(43)}\n`, { mode: 0o600 });
    const config = resolveConfig({ home, url: "http://127.0.0.1:1", tenant: "../stolen" }, {});
    expect(thrown(() => resolveToken(config))).toEqual({ code: "invalid_input", field: "tenant" });
  });
});
