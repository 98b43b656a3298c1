import { zcommand } from "../command.ts";
import { UsageError } from "../parse.ts";
import type { CommandTree } from "../tree.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;

/**
 * `zerodb completion bash|zsh|fish`: prints the shell's completion script for
 * `tree`, the command table (`command-table.ts`), which hands itself in: importing
 * it here would close a circle, since the table imports every command.
 */
export default function completion(tree: CommandTree) {
  return zcommand({
    meta: { name: "completion", description: "Print a shell completion script (bash, zsh or fish)" },
    args: {
      shell: { type: "positional", description: 'bash, zsh or fish; e.g. eval "$(zerodb completion bash)" in ~/.bashrc', required: false },
    },
    async run(args) {
      if (args.shell === undefined) throw new UsageError(`shell: name one of ${SHELLS.join(", ")} (zerodb completion bash)`, "shell");
      const shell = String(args.shell);
      if (!(SHELLS as readonly string[]).includes(shell)) throw new UsageError(`shell: '${shell}' is not one of ${SHELLS.join(", ")}`, "shell");
      const { bashScript, completionEntries, fishScript, zshScript } = await import("../completion.ts");
      const { groups, entries } = await completionEntries(tree);
      const render = { bash: bashScript, zsh: zshScript, fish: fishScript }[shell as (typeof SHELLS)[number]];
      return { shell, script: render(groups, entries) };
    },
    human: (r: { script: string }) => r.script,
    plain: true,
  });
}
