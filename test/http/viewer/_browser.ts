/**
 * The real headless Chromium the viewer's browser tests drive (DESIGN.md 13):
 * Debian's `chromium` (`.ci/run` installs it; ZERODB_CHROMIUM names another
 * binary) through playwright-core, axe-core for accessibility, screenshots
 * under test-output/viewer (ignored by git).
 */
import { resolve } from "node:path";
import type { Page } from "playwright-core";

/** The browser binary, or undefined when none is installed (the tests then skip, saying so). */
export const CHROMIUM: string | undefined =
  process.env.ZERODB_CHROMIUM ?? Bun.which("chromium") ?? Bun.which("chromium-browser") ?? Bun.which("google-chrome") ?? undefined;

/** Screenshots of the pages go here. */
export const SHOTS = resolve(import.meta.dir, "..", "..", "..", "test-output", "viewer");

/** One axe-core violation as the tests report it. */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
}

/** axe-core's serious and critical violations on the page as it is now (axe is evaluated by the driver, over CDP, not subject to the page's CSP). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await Bun.file(require.resolve("axe-core/axe.min.js")).text());
  const violations = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)")) as AxeViolation[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({ id: v.id, impact: v.impact, help: v.help }));
}
