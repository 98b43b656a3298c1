/**
 * How this zerodb starts itself: the compiled binary alone, or bun with the
 * source entry in development. Connect registers it; the capture hook starts
 * its catch-up with it.
 */

/** How to start this zerodb: the compiled binary itself, or bun with the source entry in development. */
export interface SelfCommand {
  command: string;
  /** Arguments before the zerodb command words (the source entry when not compiled). */
  prefix: string[];
}

/** True when `main` (Bun.main) is the entry of a compiled binary: it lives in Bun's embedded file system (/$bunfs/, or B:/~BUN/ on Windows). */
export function isCompiledEntry(main: string): boolean {
  return main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main);
}

/** The running zerodb, as an absolute command. */
export function selfCommand(execPath: string, main: string): SelfCommand {
  return isCompiledEntry(main) ? { command: execPath, prefix: [] } : { command: execPath, prefix: [main] };
}
