import { describe, expect, test } from 'vitest';
import type { SessionManager } from '../sessions/index.js';
import type { Db } from '../store/db.js';
import type { SyncService } from '../sync/index.js';
import { peersOf } from './wiring.js';

// Decision 210: the other machines are one port; on one machine it has nothing behind it.
describe('the peers on one machine', () => {
  test('merges and replies are this machine’s own, and no other machine’s work is read', async () => {
    const replies: [string, string][] = [];
    const mine = { id: 's1', name: 'mine' };
    const manager = {
      reply: (id: string, text: string) => {
        replies.push([id, text]);
        return Promise.resolve({ id });
      },
      list: () => [mine],
      resolve: (ref: string) => (ref === 'mine' ? mine : undefined),
    } as unknown as SessionManager;
    const peers = await peersOf(manager, () => undefined, {} as Db, '/nowhere');

    // Decision 320: the merge queue's sessions are this machine's; nothing is brought, none is elsewhere.
    expect(peers.merges.list()).toEqual([mine]);
    expect(peers.merges.resolve('mine')).toBe(mine);
    await expect(peers.merges.prepare(['mine'], undefined)).resolves.toEqual({ notes: [], brought: [] });
    await expect(peers.merges.elsewhere('/repo')).resolves.toEqual([]);
    expect(peers.merges.ownBranch('s1')).toBeUndefined();
    // The session routes find no other machine's session, and list none.
    expect(peers.sessions.find('theirs')).toBeUndefined();
    expect(peers.sessions.list()).toEqual([]);
    expect(peers.sessions.machine).toBeUndefined();
    await expect(peers.reply('s1', 'hello')).resolves.toEqual({ id: 's1' });
    expect(replies).toEqual([['s1', 'hello']]);
    expect([peers.snapshots, peers.tracked, peers.transcript]).toEqual([undefined, undefined, undefined]);
    // Serving hand-overs and closing touch nothing: no sync call, no throw.
    peers.serveHandovers({} as SyncService);
    peers.close();
  });
});
