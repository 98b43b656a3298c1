/**
 * Home and permissions (DESIGN.md section 2 and 7.1): the home and its
 * folders are 0700, config and token files 0600, so no other user on the
 * machine can read the memory or a token.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Check, type DoctorContext, check, q } from "./types.ts";

const SUBDIRS = ["data", "spill", "tokens", "logs"];

function mode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

const octal = (m: number) => m.toString(8).padStart(4, "0");

/** The home and its folders: present and 0700. */
export function homeCheck(ctx: DoctorContext): Check {
  const home = ctx.config.home;
  const m = mode(home);
  if (m === undefined) return check("home", "fail", `${home} does not exist`, "zerodb connect");
  const open = [home, ...SUBDIRS.map((d) => join(home, d))].filter((p) => {
    const pm = mode(p);
    return pm !== undefined && (pm & 0o077) !== 0;
  });
  if (open.length > 0) {
    const list = open.map((p) => `${p} is ${octal(mode(p)!)}`).join(", ");
    return check("home", "fail", `${list}: other users can read it; it must be 0700`, `chmod 700 ${open.map(q).join(" ")}`);
  }
  return check("home", "pass", `${home} is 0700`);
}

/** config.json and every token file: 0600. */
export function filesCheck(ctx: DoctorContext): Check {
  const files = [ctx.config.configFile];
  const tokens = join(ctx.config.home, "tokens");
  try {
    for (const n of readdirSync(tokens)) files.push(join(tokens, n));
  } catch {
    // no tokens folder yet
  }
  if (ctx.config.tokenFile) files.push(ctx.config.tokenFile);
  const present = files.filter((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  });
  const open = present.filter((f) => (mode(f)! & 0o077) !== 0);
  if (open.length > 0) {
    const list = open.map((f) => `${f} is ${octal(mode(f)!)}`).join(", ");
    return check("files", "fail", `${list}: it must be 0600`, `chmod 600 ${open.map(q).join(" ")}`);
  }
  if (present.length === 0) return check("files", "pass", "no config or token files yet");
  return check("files", "pass", `${present.length} config/token file(s) are 0600`);
}
