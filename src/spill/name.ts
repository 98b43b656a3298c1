/** The parts of a spill file's name (DESIGN.md section 9): a random prefix and a safe name. */
import { randomBytes } from "node:crypto";

/** Longest safe name, in bytes (it is ASCII, so also in characters). */
const SAFE_NAME_MAX_BYTES = 64;

/** The name used when nothing of the requested one survives. */
export const FALLBACK_NAME = "result.txt";

/**
 * A file name safe on every platform: keeps `[A-Za-z0-9._-]`, collapses every
 * other run to one `-`, strips leading dots and dashes (no hidden files, no
 * `..`, nothing that reads as a flag), cuts to 64 bytes, falls back to
 * `result.txt`.
 */
export function safeName(name: string): string {
  const kept = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, SAFE_NAME_MAX_BYTES);
  return kept === "" ? FALLBACK_NAME : kept;
}

/** 12 base64url characters (72 bits) from the CSPRNG: spill names cannot be guessed in advance. */
export function randomPart(): string {
  return randomBytes(9).toString("base64url");
}
