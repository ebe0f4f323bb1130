/**
 * Telling the agents (a repository's `.baton/config.json` `radar.tellAgents: true`): when two
 * sessions turn hot, each agent gets, as a message in its next turn, what the other is changing
 * where they overlap. A message never answers an agent's question for the user and never wakes a
 * session that is not running: it waits (while the pair stays hot) until the session can take it
 * as a follow-up — at once when it is idle, after the running turn otherwise (the host's reply
 * queue holds it until then). See decision 33.
 */
import { createHash } from 'node:crypto';
import type { Conflict } from '../api/conflicts.js';
import { loadRepoConfig } from '../projects/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';

const log = createLogger('radar');

/** The longest diff quoted to an agent; more is cut, with a note. */
const MAX_DIFF_CHARS = 4_000;

export interface AgentMessenger {
  get(id: string): SessionWithProject | undefined;
  isRunning(session: SessionWithProject): boolean;
  reply(ref: string, text: string, cwd?: string, clientId?: string): Promise<unknown>;
}

interface Pending {
  key: string;
  text: string;
  clientId: string;
}

/** States in which a follow-up is taken as the agent's next turn without answering anything. */
const TAKES_FOLLOW_UP = new Set(['starting', 'working', 'ready_for_review']);

export class AgentTeller {
  private readonly pending = new Map<string, Map<string, Pending>>();

  constructor(
    private readonly messenger: AgentMessenger,
    private readonly readConfig: (root: string) => {
      radar?: { tellAgents?: boolean | undefined } | undefined;
    } = loadRepoConfig,
  ) {}

  /** After a pass: queues messages for pairs that turned hot, drops those no longer hot, delivers what can go now. */
  afterPass(turnedHot: Conflict[], current: Conflict[]): void {
    for (const conflict of turnedHot) {
      if (conflict.b.kind !== 'session' || !this.enabled(conflict.projectRoot)) continue;
      // Another machine's session is told by its own machine's radar, which sees this pair too.
      if (conflict.a.machine === undefined) this.queue(conflict.a.sessionId, conflict, 'a');
      if (conflict.b.machine === undefined) this.queue(conflict.b.sessionId, conflict, 'b');
    }
    const hot = new Set(current.filter((c) => c.level === 'hot').map((c) => c.key));
    for (const [sessionId, messages] of this.pending) {
      for (const key of messages.keys()) if (!hot.has(key)) messages.delete(key);
      if (messages.size === 0) this.pending.delete(sessionId);
    }
    this.deliver();
  }

  /** Sessions with a message waiting (for tests and the log). */
  waiting(sessionId: string): number {
    return this.pending.get(sessionId)?.size ?? 0;
  }

  /** Hands over what sessions able to take a follow-up now are waiting for. */
  deliver(): void {
    for (const [sessionId, messages] of this.pending) {
      const session = this.messenger.get(sessionId);
      if (session === undefined || session.removed_at !== null) {
        this.pending.delete(sessionId);
        continue;
      }
      if (!this.messenger.isRunning(session) || !TAKES_FOLLOW_UP.has(session.state)) continue;
      this.pending.delete(sessionId);
      for (const message of messages.values()) {
        // The client id makes a repeat (a restarted supervisor finding the same pair hot) a no-op.
        this.messenger
          .reply(session.id, message.text, undefined, message.clientId)
          .catch((error: unknown) => {
            log.warn('could not tell an agent about a conflict', {
              sessionId,
              key: message.key,
              error: errorMessage(error),
            });
          });
      }
    }
  }

  private enabled(root: string): boolean {
    try {
      return this.readConfig(root).radar?.tellAgents === true;
    } catch (error) {
      log.warn('cannot read the repository config; agents are not told', {
        root,
        error: errorMessage(error),
      });
      return false;
    }
  }

  private queue(sessionId: string, conflict: Conflict, as: 'a' | 'b'): void {
    const text = messageFor(conflict, as);
    const clientId = `radar:${createHash('sha256').update(`${conflict.key}\0${as}\0${text}`).digest('hex').slice(0, 32)}`;
    const messages = this.pending.get(sessionId) ?? new Map<string, Pending>();
    messages.set(conflict.key, { key: conflict.key, text, clientId });
    this.pending.set(sessionId, messages);
  }
}

/** What one side is told: the other session, the files and lines, and the other side's diff there. */
export function messageFor(conflict: Conflict, as: 'a' | 'b'): string {
  const other = as === 'a' ? conflict.b : conflict.a;
  const otherName =
    other.kind === 'session'
      ? `${other.name} (branch ${other.branch}${other.machine === undefined ? '' : `, on machine ${other.machine}`})`
      : other.ref;
  const lines = [
    `[Baton conflict radar] Another session working on this repository, ${otherName}, is changing the same lines as you. ` +
      'Nothing has been merged yet. Where you can, keep your change compatible with theirs or leave those lines alone; say so if you cannot.',
  ];
  let budget = MAX_DIFF_CHARS;
  for (const file of conflict.files.filter((f) => f.level === 'hot')) {
    const mine = as === 'a' ? file.a : file.b;
    const theirs = as === 'a' ? file.b : file.a;
    lines.push(
      '',
      `${file.path}: your lines ${ranges(mine.hunks)}; theirs ${ranges(theirs.hunks)}. Their change:`,
    );
    const diff =
      theirs.diff.length > budget ? `${theirs.diff.slice(0, Math.max(0, budget))}\n… (cut)` : theirs.diff;
    budget -= diff.length;
    lines.push('```diff', diff.trimEnd(), '```');
  }
  return lines.join('\n');
}

export function ranges(hunks: { start: number; count: number }[]): string {
  if (hunks.length === 0) return '(none)';
  return hunks
    .map((h) =>
      h.count === 0
        ? `after ${h.start}`
        : h.count === 1
          ? `${h.start}`
          : h.count >= Number.MAX_SAFE_INTEGER
            ? 'the whole file'
            : `${h.start}-${h.start + h.count - 1}`,
    )
    .join(', ');
}
