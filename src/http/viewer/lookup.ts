/**
 * What the viewer asks of Memory beyond one call: every session (to sort
 * them newest first, which the name-ordered `sessions` operation does not),
 * projects as session-name prefixes, and a turn found by its LSN alone.
 */
import type { SessionInfo, Turn } from "../../schema/results.ts";
import type { Memory } from "../../store/types.ts";

/** The most sessions the overview reads (pages of 1000); past it the page says so. */
export const SESSIONS_MAX = 20_000;

/** Every session up to SESSIONS_MAX, newest (highest last LSN) first. */
export async function allSessions(memory: Memory): Promise<{ sessions: SessionInfo[]; truncated: boolean }> {
  const sessions: SessionInfo[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await memory.sessions({ limit: 1000, ...(after !== undefined ? { after } : {}) });
    sessions.push(...page.sessions);
    if (page.next === null) break;
    if (sessions.length >= SESSIONS_MAX) return { sessions: newestFirst(sessions), truncated: true };
    after = page.next;
  }
  return { sessions: newestFirst(sessions), truncated: false };
}

function newestFirst(sessions: SessionInfo[]): SessionInfo[] {
  return sessions.sort((a, b) => b.last_lsn - a.last_lsn);
}

/** The project of a session: its name up to the last '/' (capture names sessions under their project). */
export function projectOf(session: string): string {
  const slash = session.lastIndexOf("/");
  return slash <= 0 ? "" : session.slice(0, slash);
}

/** One project and its sessions, newest first. */
export interface Project {
  name: string;
  sessions: SessionInfo[];
  turns: number;
  bytes: number;
  last_lsn: number;
}

/** Sessions grouped by project, the project with the newest session first. */
export function projects(sessions: SessionInfo[]): Project[] {
  const byName = new Map<string, Project>();
  for (const s of sessions) {
    const name = projectOf(s.name);
    let p = byName.get(name);
    if (!p) byName.set(name, (p = { name, sessions: [], turns: 0, bytes: 0, last_lsn: 0 }));
    p.sessions.push(s);
    p.turns += s.turns;
    p.bytes += s.bytes;
    p.last_lsn = Math.max(p.last_lsn, s.last_lsn);
  }
  return [...byName.values()].sort((a, b) => b.last_lsn - a.last_lsn);
}

/**
 * The live turn with this LSN, or undefined. Memory reads by session, so
 * each session whose LSN range holds it is asked for the one turn after
 * `lsn - 1`; LSNs are unique in a tenant, so at most one answers with it.
 */
export async function findTurn(memory: Memory, lsn: number): Promise<Turn | undefined> {
  const { sessions } = await allSessions(memory);
  for (const s of sessions) {
    if (lsn < s.first_lsn || lsn > s.last_lsn) continue;
    const page = await memory.read({ session: s.name, after: lsn - 1, limit: 1 });
    if (page.turns[0]?.lsn === lsn) return page.turns[0];
  }
  return undefined;
}
