/**
 * Harness registrations (DESIGN.md 7.1): every harness config that
 * registers zerodb must point at an executable that exists, or the harness
 * fails to start its memory. One line per harness that has an entry.
 */
import { HARNESSES, isExecutable, readState } from "../harness/index.ts";
import { geminiTrustCheck } from "./gemini-trust.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

/** The fix when no harness is installed: connect cannot help until one is (issue 17, item 7). */
export const INSTALL_FIRST = `install an agent harness (${HARNESSES.map((h) => h.label).join(", ")}), then run zerodb connect`;

/** One check per harness with a zerodb entry; a warning when there is none at all. */
export function harnessChecks(ctx: DoctorContext): Check[] {
  const out: Check[] = [];
  for (const h of HARNESSES) {
    const path = h.configPath(ctx.harness);
    if (path === undefined) continue;
    const name = `harness ${h.name}`;
    let reg;
    try {
      const state = readState(path);
      if (state.text === undefined) continue;
      reg = h.registration(state.text);
    } catch (err) {
      out.push(
        check(
          name,
          "warn",
          `cannot read ${path} (${why(err)}): whether zerodb is registered is unknown`,
          `fix the file by hand, then zerodb connect --harness ${h.name}`,
        ),
      );
      continue;
    }
    if (!reg) continue;
    const fix = `zerodb connect --harness ${h.name}`;
    if (!isExecutable(reg.command, ctx.harness.platform)) {
      out.push(check(name, "fail", `${path} starts ${reg.command}, which does not exist or is not executable`, fix));
      continue;
    }
    const home = reg.env.ZERODB_HOME;
    if (home !== undefined && home !== ctx.config.home) {
      out.push(check(name, "warn", `${path} runs zerodb with home ${home}, not this home (${ctx.config.home})`, `${fix} (run with the home you mean)`));
      continue;
    }
    if (!reg.args.includes("mcp")) {
      out.push(check(name, "fail", `${path} starts ${reg.command} without the mcp command`, fix));
      continue;
    }
    out.push(check(name, "pass", `${h.label} starts ${reg.command} ${reg.args.join(" ")}`));
    if (h.name === "gemini") {
      const trust = geminiTrustCheck(path, ctx.cwd, ctx.harness.env);
      if (trust) out.push(trust);
    }
  }
  // A harness installed after connect has no entry yet: connect must run again (issue 17, item 7).
  const unregistered = HARNESSES.filter((h) => h.installed(ctx.harness) && !out.some((c) => c.name === `harness ${h.name}`));
  if (out.length === 0) {
    if (unregistered.length === 0)
      return [
        check("harnesses", "warn", `no agent harness is installed for this user (looked for ${HARNESSES.map((h) => h.label).join(", ")})`, INSTALL_FIRST),
      ];
    return [check("harnesses", "warn", `no harness has zerodb registered (installed: ${unregistered.map((h) => h.label).join(", ")})`, "zerodb connect")];
  }
  for (const h of unregistered) {
    out.push(
      check(
        `harness ${h.name}`,
        "warn",
        `${h.label} is installed but zerodb is not registered with it (installed after the last connect?)`,
        `zerodb connect --harness ${h.name}`,
      ),
    );
  }
  return out;
}
