/**
 * The allowed roots of the object tools (DESIGN.md section 8): MCP
 * object_put reads and object_get writes files only inside the server's
 * working directory and the configured object_roots, judged after resolving
 * symlinks, so a link inside a root that points outside is refused too.
 */
import { closeSync, constants, fstatSync, openSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ZeroDbError, invalid } from "../errors.ts";

/** The roots a tool may touch, as given and as their real paths (missing roots are skipped). */
export function allowedRoots(cwd: string, objectRoots: string[]): string[] {
  const out = new Set<string>();
  for (const r of [cwd, ...objectRoots]) {
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

function outside(field: string): ZeroDbError {
  return invalid(field, "is outside the allowed roots (the server's working directory and config object_roots)");
}

/**
 * The absolute form of a path a tool was given: '..' segments are refused
 * outright, then the path must lie inside a root before anything on disk
 * is looked at, so nothing is revealed about files outside the roots.
 */
function lexical(path: string, cwd: string, roots: string[], field: string): string {
  // A NUL byte cannot be in a file name; the file system calls would throw an internal error.
  if (path.includes("\u0000")) throw invalid(field, "must not contain a NUL character");
  if (path.split(/[\\/]/).includes("..")) throw invalid(field, "must not contain '..' segments");
  const abs = resolve(cwd, path);
  if (!inside(abs, roots)) throw outside(field);
  return abs;
}

/** A file inside the roots opened for reading: its descriptor (the caller closes it) and size. */
export function openInsideRoots(path: string, opts: { cwd: string; roots: string[]; field: string }): { fd: number; size: number; real: string } {
  const abs = lexical(path, opts.cwd, opts.roots, opts.field);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw invalid(opts.field, `${path}: no such file`);
  }
  if (!inside(real, opts.roots)) throw outside(opts.field);
  // O_NOFOLLOW: the checked path holds no symlink; one swapped in since is refused, not followed.
  const fd = openSync(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
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
  const abs = lexical(path, opts.cwd, opts.roots, opts.field);
  let parent: string;
  try {
    parent = realpathSync(dirname(abs));
  } catch {
    throw invalid(opts.field, `the directory ${dirname(abs)} does not exist`);
  }
  const target = join(parent, basename(abs));
  if (!inside(target, opts.roots)) throw outside(opts.field);
  return target;
}
