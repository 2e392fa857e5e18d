/** What `GET /emulator/session` answers: whether this emulator asks for its control key, and whether this browser gave it. */
export interface Session {
  key_required: boolean;
  authenticated: boolean;
}

async function answer(res: Response): Promise<Session> {
  const body = (await res.json().catch(() => undefined)) as { data?: Session; error?: string } | undefined;
  if (!res.ok || !body?.data) throw new Error(body?.error ?? `the emulator answered ${res.status}`);
  return body.data;
}

/** Whether this browser may use the control API (the cookie is HttpOnly: only the emulator can tell). */
export async function fetchSession(): Promise<Session> {
  return answer(await fetch('/emulator/session', { headers: { accept: 'application/json' }, cache: 'no-store' }));
}

/** Logs in with the control key: the emulator sets an HttpOnly, SameSite=Strict cookie. Throws the emulator's words when the key is wrong. */
export async function logIn(key: string): Promise<Session> {
  return answer(
    await fetch('/emulator/login', {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ key }),
    }),
  );
}
