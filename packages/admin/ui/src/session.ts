/**
 * Where the staff token lives (decision 0071): in this tab's memory, mirrored in sessionStorage
 * only so that a reload keeps the member signed in. sessionStorage belongs to the tab and is gone
 * when it closes; nothing is written to localStorage but the store's id and the language. The
 * mirror forgets the token after IDLE_MINUTES without use, or at the token's own expiry, whichever
 * comes first; signing out revokes it on the server.
 */
export interface Session {
  token: string;
  tenantId: string;
  expiresAt: string;
}

const KEY = 'qhatu.admin.session';
const STORE_KEY = 'qhatu.admin.store';
export const IDLE_MINUTES = 30;

let current: (Session & { idleUntil: number }) | null = null;

function persist(): void {
  try {
    if (current) sessionStorage.setItem(KEY, JSON.stringify(current));
    else sessionStorage.removeItem(KEY);
  } catch {
    // A browser that refuses storage keeps the session in memory only.
  }
}

const alive = (s: Session & { idleUntil: number }, now = Date.now()) => s.idleUntil > now && Date.parse(s.expiresAt) > now;

/** The session this tab holds, if it is still alive; a stale one is returned once as `expired`. */
export function restore(): { session: Session | null; expired: Session | null } {
  if (current) return alive(current) ? { session: current, expired: null } : { session: null, expired: drop() };
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return { session: null, expired: null };
    const saved = JSON.parse(raw) as Session & { idleUntil: number };
    if (typeof saved.token !== 'string' || typeof saved.tenantId !== 'string') return { session: null, expired: null };
    current = saved;
    return alive(saved) ? { session: saved, expired: null } : { session: null, expired: drop() };
  } catch {
    return { session: null, expired: null };
  }
}

export function start(session: Session): void {
  current = { ...session, idleUntil: Date.now() + IDLE_MINUTES * 60_000 };
  persist();
  try {
    localStorage.setItem(STORE_KEY, session.tenantId);
  } catch {
    // Remembering the store is a convenience.
  }
}

/** Whether this tab's session is still within its idle limit and its expiry. */
export function isAlive(): boolean {
  return current !== null && alive(current);
}

/** Called on every request: use keeps the session alive. */
export function touch(): void {
  if (!current) return;
  current.idleUntil = Date.now() + IDLE_MINUTES * 60_000;
  persist();
}

/** Forgets the session in this tab; answers what it was. */
export function drop(): Session | null {
  const was = current;
  current = null;
  persist();
  return was;
}

/** The store this browser signed in to last (its id is not a secret). */
export function lastStore(): string {
  try {
    return localStorage.getItem(STORE_KEY) ?? '';
  } catch {
    return '';
  }
}
