import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { NOT_SIGNED_IN } from '@studio/client';
import type { Session, User } from '@studio/schema';
import { client, readSession, setSignedOutHandler, storeSession } from './api';

interface SessionState {
  user: User | null;
  /** True until the stored token has been checked at start. */
  loading: boolean;
  signIn(email: string, password: string): Promise<void>;
  acceptInvitation(token: string, name: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [loading, setLoading] = useState(() => readSession() !== null);

  useEffect(() => {
    setSignedOutHandler(() => setUser(null));
    if (!readSession()) return;
    client
      .me()
      .then(setUser)
      .catch((e: unknown) => {
        // Only the server saying the session is gone ends it (sessionFetch already dropped it then). A
        // call cut off (the page or its frame navigating away), offline or a server error keeps it:
        // the stored session is shared with other tabs and frames, which would be signed out too.
        if ((e as { status?: number }).status === 401) {
          storeSession(null);
          client.token = NOT_SIGNED_IN;
        }
      })
      .finally(() => setLoading(false));
  }, []);

  const adopt = useCallback((s: Session) => {
    storeSession(s);
    setUser(s.user);
  }, []);

  const value = useMemo<SessionState>(
    () => ({
      user,
      loading,
      signIn: async (email, password) => adopt(await client.signIn(email, password)),
      acceptInvitation: async (token, name, password) => adopt(await client.acceptInvitation(token, name, password)),
      signOut: async () => {
        // Signing out locally must work even when the server call fails (expired session, offline).
        await client.signOut().catch(() => undefined);
        client.token = NOT_SIGNED_IN;
        storeSession(null);
        setUser(null);
      },
    }),
    [user, loading, adopt],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in user; only for components rendered under RequireUser. */
export function useUser(): User {
  const { user } = useSession();
  if (!user) throw new Error('useUser without a signed-in user');
  return user;
}
