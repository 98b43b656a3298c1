/** Issue 17, item 10: a forget that matches nothing writes nothing and says so, through the CLI. */
import { describe, expect, test } from "bun:test";
import { runJson, runZ, tempDir } from "../helpers.ts";

describe("issue 17: an empty forget", () => {
  test("forget --session does/not/exist writes no record: last_lsn, stats and the export stay as they were", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "p/a", "kept words"], o);
    await runJson(["fact", "set", "k", "v"], o);
    const stats = await runJson(["stats"], o);
    const exported = await runZ(["export"], o);
    expect(exported.code).toBe(0);

    expect(await runZ(["forget", "--session", "does/not/exist"], o)).toEqual({ code: 0, stdout: "nothing matched; nothing was written\n", stderr: "" });
    expect(await runJson(["forget", "--fact-prefix", "nope/"], o)).toEqual({ lsn: null, hidden: 0, dry_run: false });
    expect(await runJson(["forget", "--session", "does/not/exist", "--dry-run"], o)).toEqual({ lsn: null, hidden: 0, dry_run: true });

    const { disk: _d1, ...statsBefore } = stats;
    const { disk: _d2, ...statsAfter } = await runJson(["stats"], o);
    expect(statsAfter).toEqual(statsBefore);
    expect(statsAfter.last_lsn).toBe(2);
    expect(await runZ(["export"], o)).toEqual(exported);
    // The next write takes the next LSN: the empty forgets used none.
    expect(await runJson(["append", "--session", "p/a", "more"], o)).toEqual({ entries: [{ lsn: 3, duplicate: false }] });
    // A forget that matches still writes its record and says so.
    expect(await runZ(["forget", "--session", "p/a"], o)).toEqual({ code: 0, stdout: "forgot 2 record(s) at lsn 4\n", stderr: "" });
  });
});
