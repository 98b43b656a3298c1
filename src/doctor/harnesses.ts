/**
 * Harness registrations (DESIGN.md 7.1): every harness config that
 * registers zerodb must point at an executable that exists, or the harness
 * fails to start its memory. One line per harness that has an entry.
 */
import { HARNESSES, isExecutable, readState } from "../harness/index.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

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
      out.push(check(name, "warn", `cannot read ${path} (${why(err)}): whether zerodb is registered is unknown`, `fix the file by hand, then zerodb connect --harness ${h.name}`));
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
  }
  if (out.length === 0) return [check("harnesses", "warn", "no harness has zerodb registered", "zerodb connect")];
  return out;
}
