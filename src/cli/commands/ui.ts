/**
 * `zerodb ui`: the viewer of DESIGN.md 13 on the local store, on a free
 * loopback port, with a one-time login link printed on stdout (and opened
 * in the browser unless --no-open). The link is spent on first use: the
 * URL left in the browser's history logs nobody in.
 */
import type { DoctorReport } from "../../doctor/run.ts";
import { zcommand } from "../command.ts";
import { configFrom, openLocalStore } from "../context.ts";
import { ui } from "../log.ts";
import { writeOut } from "../stdout.ts";
import { UsageError, intFlag } from "../parse.ts";
import { nextSignal } from "./serve.ts";

/** Opens a URL with the desktop's opener; a machine without one just keeps the printed link. */
function openBrowser(url: string): void {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  if (Bun.which(opener) === null) return;
  try {
    Bun.spawn([opener, url], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }).unref();
  } catch {
    // Nothing to open it with: the link is printed.
  }
}

/** `zerodb ui`. */
export default zcommand({
  meta: { name: "ui", description: "Browse the store in a web viewer on a free loopback port, with a one-time login link" },
  args: {
    port: { type: "string", description: "the port (default 0: a free one)", valueHint: "port" },
    open: { type: "boolean", default: true, description: "open the link in a browser (--no-open only prints it)" },
  },
  async run(args) {
    const port = intFlag("port", args.port) ?? 0;
    if (port > 65535) throw new UsageError("port: must be 0 to 65535", "port");
    const config = configFrom(args);
    const tenant = config.tenant ?? "local";
    const store = await openLocalStore(config);
    try {
      const [{ createApp }, { serveHttp }, { createViewer }] = await Promise.all([
        import("../../http/app.ts"),
        import("../../http/serve.ts"),
        import("../../http/viewer/state.ts"),
      ]);
      // The user of `zerodb ui` owns this machine's transcripts: the capture page compares them with the cursors.
      const localCapture = async (t: string) => {
        const [{ captureStatus }, { allTranscripts }, { harnessContext }] = await Promise.all([
          import("../../capture/sync.ts"),
          import("../transcripts.ts"),
          import("../connect-common.ts"),
        ]);
        const cursors = store.capture(t);
        const sink = {
          cursor: cursors.cursor.bind(cursors),
          cursors: cursors.cursors.bind(cursors),
          commit: cursors.commit.bind(cursors),
          memory: store.memory(t),
          close() {},
        };
        // Every harness capture reads (Claude Code, Codex, Gemini CLI), as `zerodb capture status` lists them.
        return captureStatus(sink, allTranscripts(harnessContext()));
      };
      // The same checks as `zerodb doctor`, on the store this process holds (left open); one run at a time.
      let running: Promise<DoctorReport> | undefined;
      const localDoctor = () =>
        (running ??= import("./doctor.ts")
          .then((m) => m.doctorReport(args, { store }))
          .finally(() => {
            running = undefined;
          }));
      const viewer = createViewer({ store, localCapture, localDoctor });
      const app = createApp({ store, viewer, log: (line) => ui.debug(line) });
      // D1: loopback only; the viewer refuses any other Host header.
      const server = serveHttp({ fetch: app.fetch, host: "127.0.0.1", port });
      const signals = nextSignal(() => void server.abort());
      const link = `${server.url}/ui/login/once?code=${viewer.issueCode(tenant)}`;
      ui.info(`zerodb viewer on ${server.url} for tenant ${tenant}; the link below logs in once (Ctrl-C stops)`);
      await writeOut(`${link}\n`);
      if (args.open) openBrowser(link);
      await signals.signal;
      await server.stop();
      signals.dispose();
    } finally {
      store.close();
    }
    return undefined;
  },
});
