/** Regression (found by the MCP fuzz): a path with a NUL byte was an internal error in object_get. */
import { describe, expect, test } from "bun:test";
import { newFileInsideRoots, openInsideRoots } from "../../src/mcp/roots.ts";
import { tempDir } from "../helpers.ts";

describe("object tool paths (section 8)", () => {
  test("a NUL byte in a path is invalid_input naming the field, for reading and writing", () => {
    using dir = tempDir();
    const opts = { cwd: dir.path, roots: [dir.path], field: "path" };
    for (const fn of [() => newFileInsideRoots("a\u0000b.txt", opts), () => openInsideRoots("\u0000", opts)]) {
      let err: any;
      try {
        fn();
      } catch (e) {
        err = e;
      }
      expect({ code: err?.code, field: err?.field }).toEqual({ code: "invalid_input", field: "path" });
    }
  });
});
