import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { QhatuClient } from '@qhatu/client';
import { clientFor } from './api';
import { drop, restore, start, type Session } from './session';

export interface Me {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: { id: string; name: string; built_in: boolean };
  permissions: string[];
}

interface Auth {
  session: Session | null;
  me: Me | null;
  client: QhatuClient;
  /** Whether the session ended on its own (shown on the sign-in page). */
  expired: boolean;
  can(permission: string | undefined): boolean;
  signIn(tenantId: string, email: string, password: string): Promise<void>;
  /** Sets the password of an invitation or a reset link, then signs the member in. */
  setPassword(tenantId: string, token: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

/** Revokes a token on the server, best effort (it may be gone already). */
async function revoke(session: Session): Promise<void> {
  await clientFor(session).POST('/api/v1/auth/staff/logout').catch(() => undefined);
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState(() => {
    const { session, expired } = restore();
    if (expired) void revoke(expired);
    return { session, expired: Boolean(expired) };
  });
  const [me, setMe] = useState<Me | null>(null);
  const ended = useCallback(() => {
    const was = drop();
    if (was) void revoke(was);
    setMe(null);
    setState({ session: null, expired: true });
  }, []);
  const client = useMemo(() => clientFor(state.session, ended), [state.session, ended]);

  useEffect(() => {
    if (!state.session) return;
    let live = true;
    client
      .GET('/api/v1/staff/me')
      .then((answer) => live && setMe(answer.data as Me))
      .catch(() => live && ended());
    return () => {
      live = false;
    };
  }, [client, state.session, ended]);

  const value = useMemo<Auth>(
    () => ({
      session: state.session,
      me,
      client,
      expired: state.expired,
      can: (permission) => !permission || Boolean(me?.permissions.includes(permission)),
      async signIn(tenantId, email, password) {
        const answer = await clientFor({ token: '', tenantId, expiresAt: '' }).POST('/api/v1/auth/staff/login', {
          body: { email, password },
        });
        const session = { token: answer.data.token, tenantId, expiresAt: answer.data.expires_at };
        start(session);
        setState({ session, expired: false });
      },
      async setPassword(tenantId, token, password) {
        const answer = await clientFor({ token: '', tenantId, expiresAt: '' }).POST('/api/v1/auth/staff/password', { body: { token, password } });
        const session = { token: answer.data.token, tenantId, expiresAt: answer.data.expires_at };
        start(session);
        setState({ session, expired: false });
      },
      async signOut() {
        const was = drop();
        setMe(null);
        setState({ session: null, expired: false });
        if (was) await revoke(was);
      },
    }),
    [state, me, client],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth outside AuthProvider');
  return value;
}
