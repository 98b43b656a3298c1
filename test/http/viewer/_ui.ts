/** `zerodb ui --no-open` as a child process, for the tests that drive the real command. */
import { ZERODB } from "../../helpers.ts";
import { envFor } from "../_server.ts";

/** `zerodb ui --no-open` in `home`, with its stdout read line by line. */
export function spawnUi(home: string) {
  const proc = Bun.spawn([ZERODB, "ui", "--no-open"], { cwd: home, env: envFor(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return {
    proc,
    async firstLine(): Promise<string> {
      let text = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        text += decoder.decode(chunk, { stream: true });
        if (text.includes("\n")) return text.split("\n")[0]!;
      }
      throw new Error(`zerodb ui printed no link; stderr: ${await new Response(proc.stderr).text()}`);
    },
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
