/**
 * The allowed roots of the object tools (DESIGN.md section 8): MCP
 * object_put reads and object_get writes files only inside the server's
 * working directory and the configured object_roots, judged after resolving
 * symlinks, so a link inside a root that points outside is refused too.
 * The working directory is a root only when it is a project's, not the whole
 * disk, the home directory or a system directory: harnesses such as Claude
 * Desktop start MCP servers in `/`, where it would hand the model every file
 * the user can read and let it write anywhere (issue 14).
 */
import { closeSync, constants, fstatSync, openSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import { type ZeroDbError, invalid } from "../errors.ts";

/** System trees: neither they nor anything under them is ever an implicit root. */
const SYSTEM_TREES = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/run",
  "/sbin",
  "/snap",
  "/sys",
  "/usr",
  "/var/lib",
  "/var/log",
  "/var/spool",
  "/var/cache",
  "/var/mail",
  "/var/run",
  "/var/db",
  "/System",
  "/Library",
  "/Applications",
  "/private/etc",
  "/private/var/db",
  "/cores",
];
/** Shared directories that are not a root themselves (their subdirectories may be). */
const SHARED_DIRS = ["/tmp", "/var", "/var/tmp", "/private", "/private/tmp", "/private/var", "/opt", "/srv", "/mnt", "/media", "/Volumes", "/home", "/Users"];
const WINDOWS_TREES = ["windows", "program files", "program files (x86)", "programdata"];

/** Why a directory cannot be the implicit root of the object tools, or undefined when it can. */
export function implicitRootRefusal(dir: string, home = homedir()): string | undefined {
  const real = realOr(dir);
  const realHome = realOr(home);
  if (parse(real).root === real) return "the whole disk";
  if (real === realHome) return "the home directory itself";
  if (isAncestor(real, realHome)) return "a directory that holds the home directory";
  const unix = real.replaceAll("\\", "/");
  if (SHARED_DIRS.includes(unix)) return "a shared system directory";
  if (SYSTEM_TREES.some((t) => unix === t || unix.startsWith(`${t}/`))) return "a system directory";
  const winTop = real.slice(parse(real).root.length).split(/[\\/]/)[0]?.toLowerCase();
  if (process.platform === "win32" && winTop !== undefined && WINDOWS_TREES.includes(winTop)) return "a system directory";
  return undefined;
}

function realOr(p: string): string {
  try {
    return realpathSync(resolve(p));
  } catch {
    return resolve(p);
  }
}

function isAncestor(dir: string, of: string): boolean {
  const rel = relative(dir, of);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** The roots a tool may touch, as given and as their real paths (missing roots are skipped). */
export function allowedRoots(cwd: string, objectRoots: string[], home = homedir()): string[] {
  const out = new Set<string>();
  const implicit = implicitRootRefusal(cwd, home) === undefined ? [cwd] : [];
  for (const r of [...implicit, ...objectRoots]) {
    const abs = resolve(cwd, r);
    try {
      out.add(realpathSync(abs));
      out.add(abs);
    } catch {
      // A configured root that does not exist holds nothing to read and nowhere to write.
    }
  }
  return [...out];
}

function inside(path: string, roots: string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  });
}

function outside(field: string, roots: string[]): ZeroDbError {
  if (roots.length === 0) {
    return invalid(
      field,
      "cannot be used: the object tools have no allowed root here (the server's working directory is the whole disk, the home directory or a system directory, and config object_roots names none); add the directories they may use to object_roots in zerodb's config.json",
    );
  }
  return invalid(field, "is outside the allowed roots (the server's working directory and config object_roots)");
}

/**
 * The absolute form of a path a tool was given: '..' segments are refused
 * outright, then the path must lie inside a root before anything on disk
 * is looked at, so nothing is revealed about files outside the roots.
 */
function lexical(path: string, { cwd, roots, field }: { cwd: string; roots: string[]; field: string }): string {
  // A NUL byte cannot be in a file name; the file system calls would throw an internal error.
  if (path.includes("\u0000")) throw invalid(field, "must not contain a NUL character");
  if (path.split(/[\\/]/).includes("..")) throw invalid(field, "must not contain '..' segments");
  const abs = resolve(cwd, path);
  if (!inside(abs, roots)) throw outside(field, roots);
  return abs;
}

/** A file inside the roots opened for reading: its descriptor (the caller closes it) and size. */
export function openInsideRoots(path: string, opts: { cwd: string; roots: string[]; field: string }): { fd: number; size: number; real: string } {
  const abs = lexical(path, opts);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw invalid(opts.field, `${path}: no such file`);
  }
  if (!inside(real, opts.roots)) throw outside(opts.field, opts.roots);
  // O_NOFOLLOW: the checked path holds no symlink; one swapped in since is refused, not followed.
  // O_NONBLOCK: opening a FIFO waits for a writer, which would stall the whole server; it is
  // refused below as not a regular file (for a regular file the flag changes nothing).
  const fd = openSync(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw invalid(opts.field, `${path} is not a regular file`);
  }
  return { fd, size: st.size, real };
}

/**
 * Where a new file may be created inside the roots: the parent directory must
 * exist and resolve inside a root; the file itself must not exist (it is
 * never overwritten; the final create is exclusive anyway).
 */
export function newFileInsideRoots(path: string, opts: { cwd: string; roots: string[]; field: string }): string {
  const abs = lexical(path, opts);
  let parent: string;
  try {
    parent = realpathSync(dirname(abs));
  } catch {
    throw invalid(opts.field, `the directory ${dirname(abs)} does not exist`);
  }
  const target = join(parent, basename(abs));
  if (!inside(target, opts.roots)) throw outside(opts.field, opts.roots);
  // Hidden files and directories hold configuration a written file could take over
  // (.git/hooks, .config/autostart, .bashrc, .env): never a destination.
  const root = opts.roots.filter((r) => inside(target, [r])).sort((a, b) => b.length - a.length)[0]!;
  if (
    relative(root, target)
      .split(sep)
      .some((seg) => seg.startsWith("."))
  ) {
    throw invalid(opts.field, "must not name a hidden file or lie in a hidden directory (a name starting with '.')");
  }
  return target;
}
