/**
 * Shell completion scripts for bash, zsh and fish, generated from the command
 * table so a new command or flag completes without editing a script.
 */
import type { ArgsDef } from "citty";
import type { CommandTree } from "./tree.ts";
import { leaves } from "./usage.ts";

/** A command path and the flags it takes (with the one-line descriptions fish shows). */
interface Entry {
  path: string;
  flags: { name: string; description: string }[];
}

/** Every visible command with its flags; groups appear as their words. */
export async function completionEntries(tree: CommandTree): Promise<{ groups: Map<string, string[]>; entries: Entry[] }> {
  const groups = new Map<string, string[]>();
  const found = leaves(tree);
  for (const [p] of found) {
    for (let i = 0; i < p.length; i++) {
      const parent = p.slice(0, i).join(" ");
      const words = groups.get(parent) ?? [];
      if (!words.includes(p[i]!)) words.push(p[i]!);
      groups.set(parent, words);
    }
  }
  const entries = await Promise.all(
    found.map(async ([p, load]): Promise<Entry> => {
      const cmd = await load();
      const args = (typeof cmd.args === "function" ? await (cmd.args as () => Promise<ArgsDef>)() : (cmd.args ?? {})) as ArgsDef;
      const flags = Object.entries(args)
        .filter(([, d]) => d.type !== "positional")
        .map(([name, d]) => ({ name, description: d.description ?? "" }));
      return { path: p.join(" "), flags: [...flags, { name: "help", description: "show help" }] };
    }),
  );
  return { groups, entries };
}

const sh = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** bash (and zsh through bashcompinit): the path of command words, then the words that may follow it. */
export function bashScript(groups: Map<string, string[]>, entries: Entry[]): string {
  const nodes = [...groups.keys()].filter((k) => k !== "").concat(entries.map((e) => e.path));
  const cases = [
    ...[...groups].map(([path, words]) => `    ${sh(path)}) words=${sh([...words, ...(path === "" ? ["--help", "--version"] : [])].join(" "))} ;;`),
    ...entries.map((e) => `    ${sh(e.path)}) words=${sh(e.flags.map((f) => `--${f.name}`).join(" "))} ;;`),
  ];
  return `# zerodb completion for bash: eval "$(zerodb completion bash)" in ~/.bashrc
_zerodb() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${nodes.map(sh).join("|")}) path="$next" ;;
    esac
  done
  case "$path" in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _zerodb zerodb
`;
}

/** zsh runs the bash function through its bashcompinit layer. */
export function zshScript(groups: Map<string, string[]>, entries: Entry[]): string {
  return `# zerodb completion for zsh: eval "$(zerodb completion zsh)" in ~/.zshrc
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(groups, entries).split("\n").slice(1).join("\n")}`;
}

/** fish: one `complete` line per command word and per flag. */
export function fishScript(groups: Map<string, string[]>, entries: Entry[]): string {
  const cond = (path: string) =>
    path === ""
      ? "__fish_use_subcommand"
      : path
          .split(" ")
          .map((w) => `__fish_seen_subcommand_from ${w}`)
          .join("; and ");
  const lines = ["# zerodb completion for fish: zerodb completion fish > ~/.config/fish/completions/zerodb.fish", "complete -c zerodb -f"];
  for (const [path, words] of groups) for (const w of words) lines.push(`complete -c zerodb -n ${sh(cond(path))} -a ${sh(w)}`);
  for (const e of entries) for (const f of e.flags) lines.push(`complete -c zerodb -n ${sh(cond(e.path))} -l ${f.name} -d ${sh(f.description.slice(0, 80))}`);
  return `${lines.join("\n")}\n`;
}
