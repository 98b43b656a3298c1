/**
 * The viewer's server-side state (DESIGN.md 13): browser sessions and
 * one-time login links, kept in this process's memory only. The cookie holds
 * a random session id, never a token; a session made from a token checks the
 * token again on every request, so revoking it ends the session at once.
 */
import type { StatusRow } from "../../capture/sync.ts";
import type { DoctorReport } from "../../doctor/run.ts";
import type { Store } from "../../store/types.ts";
import { isLoopbackHost } from "../hosts.ts";

/** How long a browser session lasts without being used (sliding). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** How long a one-time login link can wait to be opened. */
export const LINK_TTL_MS = 10 * 60 * 1000;

/** One logged-in browser. */
export interface ViewerSession {
  /** The tenant every page acts in (I5). */
  tenant: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  /** The token it was made from, held here only, to check for revocation; absent for a one-time link. */
  token?: string;
  expires: number;
}

/** The viewer's sessions, links and allowed Host names. */
export interface Viewer {
  /** A new session id for a valid token, or undefined. */
  loginWithToken(token: string): Promise<string | undefined>;
  /** A new session id for a live one-time code (which is spent), or undefined. */
  loginWithCode(code: string): string | undefined;
  /** A one-time login code for a tenant (`zerodb ui`). */
  issueCode(tenant: string): string;
  /** The live session of an id, or undefined (an expired or revoked one is dropped). */
  session(id: string | undefined): Promise<ViewerSession | undefined>;
  /** Ends a session. */
  logout(id: string): void;
  /** Whether a request's Host header names this server (DNS rebinding, DESIGN.md 13). */
  allowsHost(host: string | undefined): boolean;
  /**
   * Whether a TLS proxy's `X-Forwarded-Proto` (or `Forwarded: proto=`) is
   * believed: only for a server given `--public-host`, the documented way
   * to run it behind one. Without it anyone could claim https for a plain
   * http connection, and nothing of it is needed on loopback.
   */
  readonly trustsForwardedProto: boolean;
  /** This machine's Claude Code transcripts against a tenant's cursors: only `zerodb ui`, whose user owns them, sets it. */
  localCapture?: (tenant: string) => Promise<StatusRow[]>;
  /** `zerodb doctor`'s checks of this machine and its store: only `zerodb ui`, whose user owns them, sets it. */
  localDoctor?: () => Promise<DoctorReport>;
}

/** What createViewer needs. */
export interface ViewerOptions {
  store: Store;
  /** Host names accepted besides loopback ones (the --host of a server listening beyond loopback). */
  hosts?: string[];
  /** See Viewer.trustsForwardedProto: set by `serve --public-host`. */
  trustForwardedProto?: boolean;
  now?: () => number;
  /** See Viewer.localCapture; never for a server whose tenants are strangers to this machine. */
  localCapture?: (tenant: string) => Promise<StatusRow[]>;
  /** See Viewer.localDoctor; never for a server whose tenants are strangers to this machine. */
  localDoctor?: () => Promise<DoctorReport>;
}

/** 32 random bytes, base64url: a session id, a CSRF token or a one-time code. */
export function randomId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** The name part of a Host header (`[::1]:7077` → `::1`, `localhost:80` → `localhost`). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") < 0 ? undefined : h.indexOf("]"));
  const colon = h.indexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}

/** The viewer state for one server. */
export function createViewer(opts: ViewerOptions): Viewer {
  const now = opts.now ?? Date.now;
  const sessions = new Map<string, ViewerSession>();
  const codes = new Map<string, { tenant: string; expires: number }>();
  const extra = new Set((opts.hosts ?? []).map((h) => hostName(h)));
  const start = (tenant: string, token?: string): string => {
    const id = randomId();
    sessions.set(id, { tenant, csrf: randomId(), ...(token !== undefined ? { token } : {}), expires: now() + SESSION_IDLE_MS });
    return id;
  };
  return {
    ...(opts.localCapture ? { localCapture: opts.localCapture } : {}),
    ...(opts.localDoctor ? { localDoctor: opts.localDoctor } : {}),
    trustsForwardedProto: opts.trustForwardedProto === true,
    async loginWithToken(token) {
      const tenant = await opts.store.tokens.verify(token);
      return tenant === undefined ? undefined : start(tenant, token);
    },
    loginWithCode(code) {
      const link = codes.get(code);
      codes.delete(code);
      if (!link || link.expires < now()) return undefined;
      return start(link.tenant);
    },
    issueCode(tenant) {
      const code = randomId();
      codes.set(code, { tenant, expires: now() + LINK_TTL_MS });
      return code;
    },
    async session(id) {
      if (id === undefined) return undefined;
      const s = sessions.get(id);
      if (!s) return undefined;
      const live = s.expires >= now() && (s.token === undefined || (await opts.store.tokens.verify(s.token)) === s.tenant);
      if (!live) {
        sessions.delete(id);
        return undefined;
      }
      s.expires = now() + SESSION_IDLE_MS;
      return s;
    },
    logout(id) {
      sessions.delete(id);
    },
    allowsHost(host) {
      if (!host) return false;
      const name = hostName(host);
      return isLoopbackHost(name) || extra.has(name);
    },
  };
}
