/** Claude Code capture hooks in settings.json: zerodb's handlers only, everything else kept. */
import { describe, expect, test } from "bun:test";
import { HOOK_EVENTS, findZerodbHooks, planHooks, planRemoveHooks } from "../../src/harness/claude-hooks.ts";
import { commandProgram, hookCommand, selfCommand } from "../../src/harness/index.ts";
import { shellWords } from "../../src/harness/shell.ts";
import type { Plan } from "../../src/harness/types.ts";

const CMD = "ZERODB_HOME=/h/zerodb /opt/zerodb hook claude-code";
const textOf = (p: Plan): string => {
  if (!("text" in p)) throw new Error(`expected a change, got ${p.change}`);
  return p.text;
};

const USER_SETTINGS = `{
  "cleanupPeriodDays": 60,
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": ["Bash(ls:*)"]
  }
}
`;

describe("install", () => {
  test("one group per event with the right timeouts; the user's hooks and settings stay", () => {
    const out = textOf(planHooks(USER_SETTINGS, CMD));
    const v = JSON.parse(out);
    expect(v.cleanupPeriodDays).toBe(60);
    expect(v.permissions).toEqual({ allow: ["Bash(ls:*)"] });
    expect(v.hooks.Stop[0]).toEqual({ matcher: "", hooks: [{ type: "command", command: "notify-send done" }] });
    for (const { event, timeout } of HOOK_EVENTS) {
      expect(v.hooks[event].at(-1)).toEqual({ hooks: [{ type: "command", command: CMD, timeout }] });
    }
    // SessionEnd hooks share 1.5 s unless they set their own timeout; UserPromptSubmit is capped at 30 s.
    expect(v.hooks.SessionEnd[0].hooks[0].timeout).toBeGreaterThan(1.5);
    expect(v.hooks.UserPromptSubmit[0].hooks[0].timeout).toBeLessThanOrEqual(30);
    expect(planHooks(out, CMD)).toEqual({ change: "unchanged" });
  });

  test("into a missing file, then removed: nothing is left", () => {
    const out = textOf(planHooks(undefined, CMD));
    expect(findZerodbHooks(JSON.parse(out))).toHaveLength(6);
    expect(JSON.parse(textOf(planRemoveHooks(out)))).toEqual({});
  });

  test("a moved binary updates the handler in place and drops stale duplicates", () => {
    const old = textOf(planHooks(USER_SETTINGS, "/old/zerodb hook claude-code"));
    const dup = JSON.parse(old);
    dup.hooks.Stop.push({ hooks: [{ type: "command", command: "/older/zerodb hook claude-code" }] });
    const plan = planHooks(JSON.stringify(dup, null, 2), CMD);
    expect(plan.change).toBe("updated");
    const v = JSON.parse(textOf(plan));
    const ours = findZerodbHooks(v);
    expect(ours).toHaveLength(6);
    expect(new Set(ours.map((h) => h.command))).toEqual(new Set([CMD]));
    expect(v.hooks.Stop).toHaveLength(2);
  });

  test("a malformed hooks value is refused", () => {
    expect(() => planHooks(`{"hooks": []}`, CMD)).toThrow("hooks");
    expect(() => planHooks(`{"hooks": {"Stop": {}}}`, CMD)).toThrow("hooks.Stop");
    expect(() => planHooks(`{"hooks": `, CMD)).toThrow();
  });
});

describe("remove", () => {
  test("gives the user's file back byte for byte", () => {
    expect(textOf(planRemoveHooks(textOf(planHooks(USER_SETTINGS, CMD))))).toBe(USER_SETTINGS);
  });

  test("a zerodb handler sharing a group with the user's keeps the user's", () => {
    const shared = JSON.stringify(
      {
        hooks: {
          Stop: [
            {
              hooks: [
                { type: "command", command: "mine" },
                { type: "command", command: CMD },
              ],
            },
          ],
        },
      },
      null,
      2,
    );
    expect(JSON.parse(textOf(planRemoveHooks(shared)))).toEqual({ hooks: { Stop: [{ hooks: [{ type: "command", command: "mine" }] }] } });
    expect(planRemoveHooks(USER_SETTINGS)).toEqual({ change: "absent" });
  });
});

describe("the hook command line", () => {
  test("pins the home and quotes paths with spaces; the program is found again", () => {
    const self = selfCommand("/Applications/zero db/zerodb", "/$bunfs/root/zerodb");
    const line = hookCommand(self, { home: "/Users/a/Library/Application Support/zerodb", platform: "darwin" });
    expect(line).toBe(`ZERODB_HOME='/Users/a/Library/Application Support/zerodb' '/Applications/zero db/zerodb' hook claude-code`);
    expect(commandProgram(line)).toBe("/Applications/zero db/zerodb");
    expect(shellWords(`a "b \\"c\\"" 'd e' f\\ g`)).toEqual(["a", 'b "c"', "d e", "f g"]);
    expect(hookCommand(selfCommand("C:\\zerodb.exe", "B:/~BUN/root/zerodb.exe"), { home: "C:\\h", platform: "win32" })).toBe(
      `"C:\\zerodb.exe" --home "C:\\h" hook claude-code`,
    );
  });

  test("from source, bun runs the entry file", () => {
    expect(selfCommand("/usr/bin/bun", "/src/zerodb/src/main.ts")).toEqual({ command: "/usr/bin/bun", prefix: ["/src/zerodb/src/main.ts"] });
  });
});
