import { isAbsolute, resolve } from "node:path";
import { UsageError } from "../parse.ts";
import { zcommand } from "../command.ts";
import { configFrom, withStore } from "../context.ts";
import { NORMAL, verbosity } from "../verbosity.ts";
import { checkTenant } from "../../schema/common.ts";
import type { SyncResult } from "../../sync/run.ts";
import type { Skipped } from "../../sync/trailing.ts";

/** A self-overwriting stderr line while records move, on a TTY only (DESIGN.md 6.3). */
function syncProgress(): { report: (phase: "push" | "pull", done: number) => void; done: () => void } {
  const show = process.stderr.isTTY === true && verbosity() >= NORMAL;
  let last = 0;
  let shown = false;
  const moved = { pull: 0, push: 0 };
  return {
    report: (phase, done) => {
      moved[phase] = done;
      if (!show) return;
      const now = performance.now();
      if (now - last < 200) return;
      last = now;
      shown = true;
      process.stderr.write(`\rzerodb sync: pulled ${moved.pull.toLocaleString("en-US")}, pushed ${moved.push.toLocaleString("en-US")} records\u001b[K`);
    },
    done: () => {
      if (shown) process.stderr.write("\r\u001b[K");
    },
  };
}

/** `zerodb sync`: shares this store through a team server (DESIGN.md 16). */
export default zcommand({
  meta: {
    name: "sync",
    description: "Push what this store wrote to a zerodb server and pull what other machines pushed (--url and --token-file, or config sync)",
  },
  args: {
    trailing: {
      type: "boolean",
      description:
        "wait until a minute has passed since the last background sync started, then sync once if this store's records wait to be pushed (what a write within that minute starts in the background)",
    },
  },
  run: async (args) => {
    const config = configFrom({ ...args, url: undefined });
    const fromFile = config.file.sync;
    const url = args.url ?? fromFile?.url;
    if (url === undefined) throw new UsageError("sync needs a server: pass --url URL --token-file FILE, or set sync: {url, token_file} in the config", "url");
    const tokenFile = args["token-file"] ?? (args.url === undefined ? fromFile?.token_file : undefined);
    const [{ readTokenFile }, { runSync }] = await Promise.all([import("../../client/token.ts"), import("../../sync/run.ts")]);
    const readToken = (): string => {
      if (tokenFile !== undefined) {
        const path = isAbsolute(tokenFile) ? tokenFile : args["token-file"] !== undefined ? resolve(tokenFile) : resolve(config.home, tokenFile);
        return readTokenFile(path, args["token-file"] !== undefined ? "token-file" : "sync.token_file");
      }
      if (config.token !== undefined) return config.token;
      throw new UsageError("sync needs a token: pass --token-file FILE (or set ZERODB_TOKEN)", "token-file");
    };
    // The tenant is checked before the store is opened or created: bad input never touches disk (I6).
    const localTenant = checkTenant(config.tenant ?? "local");
    if (args.trailing) {
      const { trailingSync } = await import("../../sync/trailing.ts");
      // The token is read once the wait is over: a sync that cannot run still clears its owed mark first.
      return trailingSync({
        dataDir: config.dataDir,
        tenant: localTenant,
        withStore: (fn) => withStore({ ...args, url: undefined }, fn),
        sync: (store) => runSync({ store, localTenant, url, token: readToken() }),
      });
    }
    const token = readToken();
    const progress = syncProgress();
    try {
      return await withStore({ ...args, url: undefined }, (store) => runSync({ store, localTenant, url, token, onProgress: progress.report }));
    } finally {
      progress.done();
    }
  },
  human: (r: SyncResult | Skipped) =>
    "skipped" in r
      ? `not synced: ${r.skipped}`
      : `synced with ${r.url} (tenant ${r.tenant}): pushed ${r.pushed}, pulled ${r.pulled}` +
        (r.objects_sent + r.objects_received > 0 ? `; objects sent ${r.objects_sent}, received ${r.objects_received}` : "") +
        (r.facts_superseded > 0 ? `; ${r.facts_superseded} older fact values kept on the server only` : ""),
});
