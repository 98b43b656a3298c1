/**
 * The paths zerodb keeps (home, data dir, store files, spill root, tokens,
 * logs) must be its user's alone (issue 14, item 3). Another local user who
 * pre-creates one of them in a shared place, or can write to it, could read
 * or plant memory; so before zerodb uses such a path it is inspected with
 * lstat: another owner, a mode writable by group or others, or a symlink in
 * place of a file is refused; a mode merely readable by others (an older
 * zerodb, a loose umask) is tightened to 0600 / 0700.
 */
import { chmodSync, lstatSync, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { ZeroDbError } from "../errors.ts";
import { shellQuote } from "./shell-quote.ts";

/** Whether a kept path is a directory or a regular file. */
export type PrivateKind = "dir" | "file";

/** One kept path: what it is, what it is called in messages, and how to choose another. */
export interface PrivatePath {
  path: string;
  kind: PrivateKind;
  /** How messages name it: "home", "data dir", "store file", ... */
  label: string;
  /** The setting that chooses another place, for the fix ("ZERODB_HOME or --home"). */
  setting?: string;
  /** Also check the parent: nobody else may rename this path away (for roots outside the home). */
  parent?: boolean;
  /** A root-owned file is accepted (a config an administrator keeps). */
  rootMayOwn?: boolean;
}

/** What is wrong with a path, and the fix to print. */
export interface PathProblem {
  path: string;
  /** refuse: zerodb will not use it; loose: readable by others, zerodb tightens it. */
  severity: "refuse" | "loose";
  detail: string;
  fix: string;
  /** The mode it should get when `loose`. */
  mode?: number;
}

const octal = (m: number) => m.toString(8).padStart(4, "0");

/** The effective uid, or undefined where there is none (Windows): nothing is checked there. */
function euid(): number | undefined {
  return process.geteuid?.();
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

function otherOwner(p: PrivatePath, uid: number, me: number): PathProblem {
  const where = p.setting ? `use a place of your own (${p.setting})` : "use a place of your own";
  return {
    path: p.path,
    severity: "refuse",
    detail: `${p.label} ${p.path} belongs to another user (uid ${uid}, you are uid ${me}): that user could read or replace what zerodb keeps there`,
    fix: `${where}; if it is really yours: sudo chown ${me} ${shellQuote(p.path)} && chmod ${p.kind === "dir" ? "700" : "600"} ${shellQuote(p.path)}`,
  };
}

/** The problem with one kept path, or undefined when it is missing or private. Reads only. */
export function inspectPrivatePath(p: PrivatePath): PathProblem | undefined {
  const me = euid();
  if (me === undefined) return undefined;
  const lst = lstatOrUndefined(p.path);
  const parent = p.parent ? inspectParent(p) : undefined;
  if (!lst) return parent;
  const want = p.kind === "dir" ? 0o700 : 0o600;
  const chmodFix = `chmod ${octal(want).slice(1)} ${shellQuote(p.path)}`;
  let st = lst;
  if (lst.isSymbolicLink()) {
    // A file zerodb keeps is never reached through a link: the link's owner chooses where the bytes go.
    if (p.kind === "file") {
      return {
        path: p.path,
        severity: "refuse",
        detail: `${p.label} ${p.path} is a symbolic link; zerodb does not follow links to the files it keeps`,
        fix: `rm ${shellQuote(p.path)} (or replace it by the file it points to)`,
      };
    }
    // A linked directory is fine when the link is ours (only its owner can re-point it) and its target passes.
    if (lst.uid !== me) return otherOwner(p, lst.uid, me);
    try {
      st = statSync(p.path);
    } catch {
      // A link to nothing: the code that creates the directory reports it (nothing is created through it).
      return parent;
    }
  }
  // Something other than a directory where one belongs: the code that creates it reports that (invalid_input, naming the field).
  if (p.kind === "dir" && !st.isDirectory()) return parent;
  if (p.kind === "file" && !st.isFile()) {
    return { path: p.path, severity: "refuse", detail: `${p.label} ${p.path} is not a regular file`, fix: `move ${shellQuote(p.path)} away` };
  }
  if (st.uid !== me && !(p.rootMayOwn && st.uid === 0)) return otherOwner(p, st.uid, me);
  const m = st.mode & 0o777;
  if ((m & 0o022) !== 0) {
    return {
      path: p.path,
      severity: "refuse",
      detail: `${p.label} ${p.path} is ${octal(m)}: other users can write to it (${p.kind === "dir" ? "and may have put files in it" : "and may have changed it"}); it must be ${octal(want)}`,
      fix: chmodFix,
    };
  }
  if (parent) return parent;
  if ((m & 0o077) !== 0 && st.uid === me) {
    return {
      path: p.path,
      severity: "loose",
      detail: `${p.label} ${p.path} is ${octal(m)}: other users can read it; it must be ${octal(want)}`,
      fix: chmodFix,
      mode: want,
    };
  }
  return undefined;
}

/**
 * The parent of a root: another user who owns it, or may write to it without
 * the sticky bit, can rename the root away and put their own in its place.
 * Root may own it (as root owns /tmp, which is sticky).
 */
function inspectParent(p: PrivatePath): PathProblem | undefined {
  const me = euid()!;
  const dir = dirname(p.path);
  let st: Stats;
  try {
    st = statSync(dir);
  } catch {
    // Missing: zerodb creates it, 0700.
    return undefined;
  }
  const m = st.mode & 0o7777;
  const fix = `use a place inside a directory only you can change${p.setting ? ` (${p.setting})` : ""}`;
  if (st.uid !== me && st.uid !== 0) {
    return {
      path: p.path,
      severity: "refuse",
      detail: `the directory ${dir} holding ${p.label} ${p.path} belongs to another user (uid ${st.uid}), who could swap it for their own`,
      fix,
    };
  }
  if ((m & 0o022) !== 0 && (m & 0o1000) === 0) {
    return {
      path: p.path,
      severity: "refuse",
      detail: `the directory ${dir} holding ${p.label} ${p.path} is ${octal(m & 0o777)} without the sticky bit: other users can rename ${p.path} and put their own in its place`,
      fix: `chmod go-w ${shellQuote(dir)} (or chmod +t ${shellQuote(dir)}), or ${fix}`,
    };
  }
  return undefined;
}

/** The error a refused path is reported with: the path, why, and the fix. */
export function unsafePathError(problem: PathProblem): ZeroDbError {
  return new ZeroDbError("unsafe_path", `${problem.detail}: ${problem.fix}`);
}

/**
 * Checks paths before zerodb uses them: throws `unsafe_path` for the first
 * refused one (before anything is tightened or written), then tightens every
 * loose one (chmod 0600 / 0700) unless `tighten` is false. Missing paths
 * pass; the caller creates them.
 */
export function guardPrivatePaths(paths: PrivatePath[], opts: { tighten?: boolean } = {}): void {
  const problems = paths.map(inspectPrivatePath).filter((x): x is PathProblem => x !== undefined);
  const refused = problems.find((x) => x.severity === "refuse");
  if (refused) throw unsafePathError(refused);
  if (opts.tighten === false) return;
  for (const x of problems) {
    try {
      chmodSync(x.path, x.mode!);
    } catch (err) {
      // SQLite removes -wal and -shm when the last connection closes: gone is private enough.
      if ((err as { code?: string }).code !== "ENOENT") throw err;
    }
  }
}
