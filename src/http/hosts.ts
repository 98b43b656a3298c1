/**
 * Which host names stay on this machine (DESIGN.md D1), apart from the server
 * that binds them: the viewer's Host check and the CLI's listen check ask it
 * too, and neither needs the server for the answer.
 */
import { isIP } from "node:net";

/** True for names and addresses that never leave the machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^(0{1,4}:){7}0{0,3}1$/.test(h) || /^::ffff:127\./.test(h);
  return false;
}
