import { COMMIT, VERSION } from "../../version.ts";
import { zcommand } from "../command.ts";

/** `zerodb version`. */
export default zcommand({
  meta: { name: "version", description: "Print the version and the commit it was built from" },
  run: async () => ({ version: VERSION, commit: COMMIT, bun: Bun.version, platform: `${process.platform}-${process.arch}` }),
  human: (r: { version: string; commit: string }) => `zerodb ${r.version} (${r.commit})`,
  plain: true,
});
