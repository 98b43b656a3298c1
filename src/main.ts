/** The only compile entry: runs the CLI, nothing else. */
import { runCli } from "./cli/main.ts";

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`zerodb: internal error\n`);
    if (process.env.ZERODB_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
