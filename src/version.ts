/** The version and the commit this binary was built from (DESIGN.md section 10). */
import pkg from "../package.json" with { type: "json" };

// Set by scripts/build.ts through `bun build --define`; absent when run from source.
declare const ZERODB_BUILD_COMMIT: string | undefined;

/** The package version. */
export const VERSION: string = pkg.version;

/** The git commit of the build, or "source" when running from the source tree. */
export const COMMIT: string = typeof ZERODB_BUILD_COMMIT === "string" ? ZERODB_BUILD_COMMIT : "source";
