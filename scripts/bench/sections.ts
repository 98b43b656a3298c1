/** Bench sections in the order they run; the machine's limits first, so others can compare. */
import type { Section } from "./_lib.ts";

const load = (p: Promise<{ default: Section }>) => p.then((m) => m.default);

export const SECTIONS: (() => Promise<Section>)[] = [
  () => load(import("./machine.ts")),
  () => load(import("./store.ts")),
  () => load(import("./http.ts")),
  () => load(import("./objects.ts")),
  () => load(import("./mcp.ts")),
  () => load(import("./startup.ts")),
  () => load(import("./hook.ts")),
  () => load(import("./harnesses.ts")),
  () => load(import("./redact.ts")),
  () => load(import("./peers.ts")),
  () => load(import("./search.ts")),
  () => load(import("./history.ts")),
  () => load(import("./recall.ts")),
  () => load(import("./viewer.ts")),
  () => load(import("./sync.ts")),
  () => load(import("./compression.ts")),
  () => load(import("./postgres.ts")),
];
