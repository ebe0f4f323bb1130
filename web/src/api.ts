/**
 * The page's side of the supervisor API. Requests ride on the login cookie; the browser adds
 * our Origin to every POST, which the supervisor requires for cookie-authenticated writes.
 */
import type { ApiErrorBody, DispatchRequest, SessionView } from '../../src/api/index.js';
import type { InboxView, TranscriptPage, UsageView } from '../../src/api/web.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Set when the supervisor says we are not logged in, so the shell can say how to log in. */
export const authListeners = new Set<() => void>();

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.ok) return (await response.json()) as T;
  let error: ApiErrorBody['error'] = { code: 'http', message: `HTTP ${response.status}` };
  try {
    error = ((await response.json()) as ApiErrorBody).error;
  } catch {
    // not JSON: keep the status line
  }
  if (response.status === 401) for (const listener of authListeners) listener();
  throw new ApiError(response.status, error.code, error.message);
}

const at = (id: string, action = ''): string => `/api/sessions/${encodeURIComponent(id)}${action}`;
type Envelope = { session: SessionView };

export const api = {
  inbox: () => request<InboxView>('GET', '/api/inbox'),
  changes: () => request<{ counts: Record<string, number> }>('GET', '/api/changes'),
  transcript: (id: string, before?: number, limit = 300) =>
    request<TranscriptPage>('GET', `${at(id, '/transcript')}?limit=${limit}${before === undefined ? '' : `&before=${before}`}`),
  usage: (id: string) => request<UsageView>('GET', at(id, '/usage')),
  async diff(id: string): Promise<{ text: string; truncated: boolean }> {
    const response = await fetch(at(id, '/diff'), { credentials: 'same-origin' });
    if (!response.ok) throw new ApiError(response.status, 'http', `The diff could not be loaded (HTTP ${response.status}).`);
    return { text: await response.text(), truncated: response.headers.get('x-baton-diff-truncated') === '1' };
  },
  dispatch: (body: DispatchRequest) => request<Envelope>('POST', '/api/sessions', body),
  reply: (id: string, text: string) => request<Envelope>('POST', at(id, '/reply'), { text }),
  approval: (id: string, decision: 'allow' | 'deny', requestId?: string, reason?: string) =>
    request<Envelope>('POST', at(id, '/approval'), { decision, ...(requestId ? { requestId } : {}), ...(reason ? { reason } : {}) }),
  action: (id: string, action: 'interrupt' | 'stop' | 'respawn' | 'done') => request<Envelope>('POST', at(id, `/${action}`)),
  pin: (id: string, pinned: boolean) => request<Envelope>('POST', at(id, '/pin'), { pinned }),
};

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
