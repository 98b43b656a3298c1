/**
 * Distractor turns (DESIGN.md 11: "a few hundred turns flatter any ranker"):
 * plausible coding-agent chatter, tool calls and their outputs, made from
 * templates and the developer vocabulary. Turn i depends only on i, so every
 * run and every machine measures against the same memory.
 */
import { type Rand, rand } from "../../../test/rand.ts";
import { CJK, DIRS, ENGLISH, EXTS, HOSTS, NOUNS, VERBS } from "./vocabulary.ts";

/** A distractor turn as it is appended. */
export interface Distractor {
  role: "user" | "assistant" | "tool";
  content: string;
}

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const ident = (r: Rand) => r.pick(VERBS) + cap(r.pick(NOUNS)) + (r.next() < 0.4 ? cap(r.pick(NOUNS)) : "");
const snake = (r: Rand) => `${r.pick(NOUNS)}_${r.pick(NOUNS)}`;
const file = (r: Rand) => `${r.pick(DIRS)}/${r.pick(NOUNS)}/${r.pick(NOUNS)}${r.next() < 0.3 ? `-${r.pick(NOUNS)}` : ""}.${r.pick(EXTS)}`;

function sentence(r: Rand, words = 8 + r.int(14)): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const x = r.next();
    out.push(x < 0.55 ? r.pick(ENGLISH) : x < 0.85 ? r.pick(NOUNS) : x < 0.95 ? r.pick(VERBS) : ident(r));
  }
  return `${cap(out.join(" "))}.`;
}

function prose(r: Rand, n = 1 + r.int(4)): string {
  return Array.from({ length: n }, () => (r.next() < 0.06 ? r.pick(CJK) : sentence(r))).join(" ");
}

const ERRORS: ((r: Rand) => string)[] = [
  (r) => `TypeError: Cannot read properties of undefined (reading '${r.pick(NOUNS)}')`,
  (r) => `Error: connect ECONNREFUSED 10.0.${r.int(255)}.${r.int(255)}:${[5432, 6379, 9200, 8080][r.int(4)]}`,
  (r) => `Error: timeout of ${(1 + r.int(30)) * 1000}ms exceeded while ${r.pick(VERBS)}ing ${r.pick(NOUNS)}`,
  (r) => `ERROR: duplicate key value violates unique constraint "${snake(r)}_key"`,
  (r) => `${cap(r.pick(NOUNS))}Error: ${r.pick(NOUNS)} ${r.pick(NOUNS)} not found (${r.pick(HOSTS)})`,
  (r) => `panic: runtime error: invalid memory address or nil pointer dereference in ${ident(r)}`,
  (r) => `warning: ${r.pick(NOUNS)} ${r.pick(VERBS)} took ${r.int(9000)} ms, over the ${r.int(500)} ms budget`,
  (r) => `FATAL: remaining connection slots are reserved (${r.pick(HOSTS)})`,
];

const COMMANDS: ((r: Rand) => string)[] = [
  (r) => `npm test -- ${r.pick(NOUNS)}`,
  (r) => `git log --oneline -n ${5 + r.int(20)} -- ${file(r)}`,
  (r) => `kubectl -n ${r.pick(["staging", "production", "preview"])} get pods -l app=${r.pick(NOUNS)}-${r.pick(["api", "worker", "web"])}`,
  (r) => `psql $DATABASE_URL -c 'select ${r.pick(NOUNS)}_id, count(*) from ${r.pick(NOUNS)}s group by 1 order by 2 desc limit 10'`,
  (r) => `docker compose up -d ${r.pick(NOUNS)}`,
  (r) => `grep -rn ${ident(r)} ${r.pick(DIRS)}`,
  (r) => `cd ${r.pick(DIRS)} && go test ./${r.pick(NOUNS)}/...`,
  (r) => `curl -s https://${r.pick(NOUNS)}.internal/${r.pick(NOUNS)}/${r.int(9999)} | jq .${r.pick(NOUNS)}`,
  (r) => `helm upgrade ${r.pick(NOUNS)}-api deploy/helm -n ${r.pick(["staging", "production"])} --wait --timeout ${r.pick([120, 300, 600])}s`,
  (r) => `tail -n ${50 + r.int(200)} /var/log/${r.pick(NOUNS)}/${r.pick(NOUNS)}.log`,
];

function logLines(r: Rand, n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = r.next();
    const ts = `2026-0${1 + r.int(3)}-${String(1 + r.int(28)).padStart(2, "0")}T${String(r.int(24)).padStart(2, "0")}:${String(r.int(60)).padStart(2, "0")}:${String(r.int(60)).padStart(2, "0")}Z`;
    if (x < 0.3)
      lines.push(
        `${ts} ${r.pick(["INFO", "DEBUG", "WARN"])} ${r.pick(NOUNS)}=${r.int(100000)} ${r.pick(VERBS)} ${r.pick(NOUNS)} ${r.pick(NOUNS)} in ${r.int(900)}ms host=${r.pick(HOSTS)}`,
      );
    else if (x < 0.45) lines.push(`${ts} ERROR ${r.pick(ERRORS)(r)}`);
    else if (x < 0.65)
      lines.push(
        `  ${r.next() < 0.93 ? "✓" : "✗"} ${r.pick(NOUNS)} > ${r.pick(VERBS)}s ${r.pick(NOUNS)} ${r.pick(ENGLISH)} ${r.pick(NOUNS)} (${r.int(300)} ms)`,
      );
    else if (x < 0.75) lines.push(`    at ${ident(r)} (${file(r)}:${1 + r.int(400)}:${1 + r.int(60)})`);
    else if (x < 0.85)
      lines.push(
        `${r.pick(NOUNS)}-${r.pick(["api", "worker", "web"])}-${r.int(0xffff).toString(16)}   ${r.int(3)}/1   ${r.pick(["Running", "Running", "CrashLoopBackOff", "Pending"])}   ${r.int(12)}   ${r.int(59)}m`,
      );
    else lines.push(`${r.int(0xfffffff).toString(16).padStart(7, "0")} ${sentence(r, 4 + r.int(6)).slice(0, -1)}`);
  }
  return lines.join("\n");
}

const MAKERS: ((r: Rand) => Distractor)[] = [
  (r) => ({
    role: "user",
    content: `${r.pick(["can you", "please", "could you", "let's", "we need to"])} ${r.pick(VERBS)} the ${r.pick(NOUNS)} ${r.pick(NOUNS)} in ${file(r)}? ${prose(r, 1 + r.int(2))}`,
  }),
  (r) => ({
    role: "assistant",
    content: `I ${r.pick(VERBS)}ed ${ident(r)} in ${file(r)} so the ${r.pick(NOUNS)} ${r.pick(NOUNS)} ${r.pick(["works again", "no longer fails", "is faster", "stays consistent", "passes"])}. ${prose(r)}`,
  }),
  (r) => ({ role: "assistant", content: `[thinking]\n${prose(r, 2 + r.int(4))}` }),
  (r) => ({
    role: "assistant",
    content: `[tool_use Bash]\n${JSON.stringify({ command: r.pick(COMMANDS)(r), description: `${cap(r.pick(VERBS))} ${r.pick(NOUNS)}` })}`,
  }),
  (r) => ({ role: "assistant", content: `[tool_use Read]\n${JSON.stringify({ file_path: `/home/dev/src/${r.pick(NOUNS)}/${file(r)}` })}` }),
  (r) => ({ role: "assistant", content: `[tool_use Grep]\n${JSON.stringify({ pattern: ident(r), path: r.pick(DIRS), output_mode: "content" })}` }),
  (r) => ({
    role: "assistant",
    content: `[tool_use Edit]\n${JSON.stringify({ file_path: `/home/dev/src/${r.pick(NOUNS)}/${file(r)}`, old_string: `const ${ident(r)} = ${r.int(100)};\n${sentence(r, 5)}`, new_string: `// ${sentence(r, 6)}\nconst ${ident(r)} = ${r.int(100)};` })}`,
  }),
  (r) => ({ role: "tool", content: `[tool_result]\n${logLines(r, 3 + r.int(r.next() < 0.15 ? 60 : 12))}` }),
  (r) => ({
    role: "tool",
    content: `[tool_result]\n${Array.from({ length: 2 + r.int(10) }, () => `${file(r)}:${1 + r.int(300)}:  ${r.next() < 0.5 ? `const ${snake(r)} = ${ident(r)}(${r.pick(NOUNS)});` : `${ident(r)}(${r.pick(NOUNS)}, { ${r.pick(NOUNS)}: ${r.int(1000)} });`}`).join("\n")}`,
  }),
  (r) => ({ role: "tool", content: `[tool_result error]\n${r.pick(ERRORS)(r)}\n${logLines(r, 2 + r.int(6))}` }),
  (r) => ({ role: "user", content: `${r.pick(CJK)}。${r.pick(NOUNS)} の ${r.pick(NOUNS)} について、${r.pick(CJK)}` }),
];

/** Distractor turn i; `variant` picks another turn at the same index (used to step around a label). */
export function distractor(i: number, variant = 0): Distractor {
  const r = rand(i * 2654435761 + variant * 97 + 1);
  return r.pick(MAKERS)(r);
}

/** The first n distractor turns, none of which contains any of `avoid` (a turn that would is drawn again). */
export function distractors(n: number, avoid: readonly string[] = []): Distractor[] {
  const out: Distractor[] = [];
  for (let i = 0; i < n; i++) {
    let d = distractor(i);
    for (let v = 1; avoid.some((a) => d.content.includes(a)); v++) d = distractor(i, v);
    out.push(d);
  }
  return out;
}
