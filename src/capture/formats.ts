/** Which renderer reads a transcript's lines, by the harness that wrote it. */
import type { RenderOptions, Rendered } from "./render.ts";
import { renderLine } from "./render.ts";
import { renderCodexLine } from "./render-codex.ts";
import { renderGeminiLine } from "./render-gemini.ts";
import { renderOpencodeLine } from "./render-opencode.ts";
import type { Format } from "./sources.ts";

/** The line renderer of a format (Claude Code's when none is named, with `opts`). */
export function rendererOf(format: Format | undefined, opts: RenderOptions = {}): (text: string) => Rendered {
  if (format === "codex") return renderCodexLine;
  if (format === "gemini") return renderGeminiLine;
  if (format === "opencode") return renderOpencodeLine;
  return opts.ownFile === undefined ? renderLine : (text) => renderLine(text, opts);
}
