/**
 * Home and permissions (DESIGN.md section 2 and 7.1; issue 14, item 3):
 * every directory zerodb keeps (home, its folders, the data dir, the object
 * tree's top, the spill root) is its user's own and 0700, every file (config,
 * tokens, the store and its -wal/-shm, zerodb.id, capture.log) its own and
 * 0600, none a symlink where a file belongs, and the parent of each root
 * cannot be used by another user to swap it. The checks only read.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { captureLogPath } from "../capture/log.ts";
import { tokenFilePath } from "../client/token.ts";
import { configPath, homePaths } from "../config.ts";
import { spillRootPath } from "../spill/file.ts";
import { dataDirPaths } from "../store/index.ts";
import { type PathProblem, type PrivatePath, inspectPrivatePath } from "../util/private-path.ts";
import { lexists } from "../util/fs.ts";
import { type Check, type DoctorContext, check } from "./types.ts";

/** Each path once; an entry asking for its parent's check wins over one that does not. */
function unique(paths: PrivatePath[]): PrivatePath[] {
  const byPath = new Map<string, PrivatePath>();
  for (const p of paths) {
    const seen = byPath.get(p.path);
    if (!seen || (p.parent && !seen.parent)) byPath.set(p.path, p);
  }
  return [...byPath.values()];
}

/** One fix line for several problems: chmods of the same mode share one command. */
function joinFixes(problems: PathProblem[]): string {
  const chmods = new Map<string, string[]>();
  const others: string[] = [];
  for (const p of problems) {
    const m = /^chmod ([67]00) (\S+)$/.exec(p.fix);
    if (m) chmods.set(m[1]!, [...(chmods.get(m[1]!) ?? []), m[2]!]);
    else if (!others.includes(p.fix)) others.push(p.fix);
  }
  return [...[...chmods].map(([mode, list]) => `chmod ${mode} ${list.join(" ")}`), ...others].join("; ");
}

function report(name: string, paths: PrivatePath[], passed: string): Check {
  const problems = unique(paths)
    .map(inspectPrivatePath)
    .filter((p): p is PathProblem => p !== undefined);
  if (problems.length === 0) return check(name, "pass", passed);
  return check(name, "fail", problems.map((p) => p.detail).join("; "), joinFixes(problems));
}

/** The home, its folders, the data dir and the spill root: present, the user's own, 0700. */
export function homeCheck(ctx: DoctorContext): Check {
  const { home, dataDir, spillRoot } = ctx.config;
  if (!lexists(home)) return check("home", "fail", `${home} does not exist`, "zerodb connect");
  const dirs = [...homePaths(home), ...dataDirPaths(dataDir).filter((p) => p.kind === "dir"), spillRootPath(spillRoot)];
  return report("home", dirs, `${home} is 0700`);
}

/** config.json, every token file, the store's files and capture.log: the user's own, 0600, not symlinks. */
export function filesCheck(ctx: DoctorContext): Check {
  const files: PrivatePath[] = [configPath(ctx.config.configFile)];
  const tokens = join(ctx.config.home, "tokens");
  try {
    for (const n of readdirSync(tokens)) files.push(tokenFilePath(join(tokens, n)));
  } catch {
    // no tokens folder yet
  }
  if (ctx.config.tokenFile) files.push(tokenFilePath(ctx.config.tokenFile));
  files.push(...dataDirPaths(ctx.config.dataDir).filter((p) => p.kind === "file"));
  files.push({ path: captureLogPath(ctx.config.home), kind: "file", label: "capture log" });
  const present = files.filter((f) => lexists(f.path)).length;
  return report("files", files, present === 0 ? "no config, token or store files yet" : `${present} config, token, store and log file(s) are yours and 0600`);
}
