/** A read-ahead worker that serves two reads and dies on the third (read-ahead.test.ts). */
import "../../src/capture/read-worker.ts";

declare const self: Worker;

const serve = self.onmessage!;
let reads = 0;
self.onmessage = (e: MessageEvent) => {
  if (!("close" in e.data) && ++reads === 3) throw new Error("the worker died");
  serve.call(self, e);
};
