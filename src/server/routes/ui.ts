/** The dashboard's reads beyond sessions: the board's stream, the inbox, change counts, login codes. */
import type { UI } from '../../api/ui.js';
import { ForbiddenError } from '../../shared/errors.js';
import type { SessionManager } from '../../sessions/index.js';
import type { PeerSessions } from '../../cluster/index.js';
import type { BrowserAuth } from '../web-auth.js';
import { serveBoardStream } from '../web-stream.js';
import type { Handlers } from './mount.js';

/** Events worth showing next to a question: what the agent said and did, not bookkeeping. */
const CONTEXT_TYPES = [
  'message.added',
  'thinking.added',
  'tool.started',
  'tool.finished',
  'error.raised',
  'question.asked',
  'approval.requested',
];
const INBOX_CONTEXT = 6;

export interface UiDeps {
  manager: SessionManager;
  auth: BrowserAuth;
  port: () => number;
  /**
   * The other machines' sessions (decision 127, "A shared workspace in the supervisor"), from the
   * peers port: on the board's stream too.
   */
  peers?: PeerSessions;
}

export function uiHandlers({ manager, auth, port, peers }: UiDeps): Handlers<typeof UI> {
  return {
    'GET /api/stream': ({ c, query }) => serveBoardStream(c, manager, query, peers),
    'GET /api/inbox': () => ({
      items: manager
        .list()
        .filter((s) => s.state === 'needs_input')
        .map((s) => ({
          session: manager.view(s),
          context: manager.latestEvents(s.id, CONTEXT_TYPES, INBOX_CONTEXT).reverse(),
        })),
    }),
    'GET /api/changes': async () => {
      const sizes = await manager.workSizes.all();
      const counts = Object.fromEntries(Object.entries(sizes).map(([id, size]) => [id, size.files]));
      return { counts, sizes, reviewQueue: manager.workSizes.reviewQueue() };
    },
    'POST /api/ui/login': ({ c }) => {
      // A page already logged in must not mint codes for others: only the token holder may.
      if (auth.viaCookie(c)) throw new ForbiddenError('Login codes need the token; run `baton ui`.');
      const { code, expiresAt } = auth.issueCode();
      return { url: `http://127.0.0.1:${port()}/login?code=${code}`, expiresAt: expiresAt.toISOString() };
    },
  };
}
