/**
 * The ledger of a fan-out's finished items (decision 301): the batch prompt asks the agent to say
 * `done: <item>` on a line of its own as it finishes each item; those lines in its messages, over
 * every try of the batch, are the items finished. A batch resumed after a usage limit is told which
 * are finished and which are left, and a retried batch is given only those left, so neither redoes
 * what finished. The agent's word is all it is: it can only spare or repeat its own batch's items.
 */
import type { AttemptMemberRow, AttemptStore } from '../store/attempts.js';
import type { AttemptSessions } from './sessions.js';

/** How far back a batch's messages are read for its `done:` lines. */
const MESSAGES_READ = 5000;
const DONE_LINE = /^[ \t>*-]*`?done:\s*(.+?)`?\s*$/gim;

/** The items of `items` that the sessions' assistant messages said were done, in the items' order. */
export function finishedItems(
  sessions: Pick<AttemptSessions, 'latestEvents'>,
  sessionIds: readonly string[],
  items: readonly string[],
): string[] {
  const said = new Set<string>();
  for (const id of sessionIds) {
    for (const event of sessions.latestEvents(id, ['message.added'], MESSAGES_READ)) {
      if (event.type !== 'message.added' || event.role !== 'assistant') continue;
      for (const match of event.text.matchAll(DONE_LINE)) said.add(match[1]!.trim());
    }
  }
  return items.filter((item) => said.has(item.trim()));
}

/** A batch's items and what of them is finished, over all its tries; undefined for a session of no fan-out. */
export function batchLedger(
  store: Pick<AttemptStore, 'memberOf' | 'members' | 'get'>,
  sessions: Pick<AttemptSessions, 'latestEvents'>,
  sessionId: string,
): { items: string[]; finished: string[]; left: string[] } | undefined {
  const member = store.memberOf(sessionId);
  if (member === undefined || store.get(member.group_id)?.kind !== 'fanout') return undefined;
  const tries = store.members(member.group_id).filter((m) => m.slot === member.slot);
  return ledgerOf(sessions, tries);
}

export function ledgerOf(
  sessions: Pick<AttemptSessions, 'latestEvents'>,
  tries: readonly AttemptMemberRow[],
): { items: string[]; finished: string[]; left: string[] } {
  const items = JSON.parse(tries[0]?.items_json ?? '[]') as string[];
  const finished = finishedItems(sessions, [...new Set(tries.map((t) => t.session_id))], items);
  return { items, finished, left: items.filter((i) => !finished.includes(i)) };
}

/** What a fan-out batch resumed after its usage limit is told besides "continue": its ledger. */
export function continueNote(
  store: Pick<AttemptStore, 'memberOf' | 'members' | 'get'>,
  sessions: Pick<AttemptSessions, 'latestEvents'>,
  sessionId: string,
): string | undefined {
  const ledger = batchLedger(store, sessions, sessionId);
  if (ledger === undefined) return undefined;
  const list = (items: string[]): string => (items.length === 0 ? 'none' : items.join(', '));
  return `Items of this batch already finished (do not redo them): ${list(ledger.finished)}. Items left: ${list(ledger.left)}.`;
}
