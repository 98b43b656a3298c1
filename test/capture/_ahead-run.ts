/**
 * One capture run with the read-ahead worker always on, as capture sync
 * runs it when a core is free (its checksums computed in the worker), for
 * the kill loop of read-ahead-kill.test.ts: `bun _ahead-run.ts TRANSCRIPT
 * SESSION_ID DATA_DIR`. Prints the run's result as JSON when it finishes.
 */
import { localSink } from "../../src/capture/local-sink.ts";
import { ReadAhead } from "../../src/capture/read-ahead.ts";
import { captureSources } from "../../src/capture/run.ts";
import { mainSource } from "../../src/capture/sources.ts";
import { openStore } from "../../src/store/index.ts";

const [transcript, sid, dataDir] = process.argv.slice(2) as [string, string, string];
const store = await openStore({ dataDir });
const sink = localSink(store, "local");
using ahead = new ReadAhead();
ahead.storeId = sink.storeId;
const r = await captureSources({
  sink,
  sources: [mainSource(transcript, sid)],
  session: "app-00000000/kill",
  redact: true,
  budget: { entries: Infinity, bytes: Infinity, batchEntries: 256 },
  readAhead: ahead,
});
store.close();
console.log(JSON.stringify({ appended: r.appended, skipped: r.skipped, failed: ahead.failed, warnings: r.warnings }));
