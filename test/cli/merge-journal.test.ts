/**
 * Merges under kill -9 at each step boundary (decision 166): the running supervisor is armed
 * (BATON_TEST_CRASH_FILE naming a step and its pid), kills itself there, and the `baton merge` that
 * was waiting starts the next one, which reconciles the journaled merge with what the base shows.
 * Landed: the landing is finished once (event, completion, worktree removed). Not landed: the base
 * is untouched, the session can be merged again, and the result says so. Either way `baton merge`
 * lists the result after the restart.
 *
 * `npm test` kills at one step of each kind (decision 175): after the base moved (the old fault's
 * window), after the check (nothing landed), in the queue, and a group between its members.
 * `npm run soak` (BATON_SOAK_KILLS set) kills at every step, and test/cli/soak.test.ts at random ones.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MergeListView, MergeResult } from '../../src/api/merge.js';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure, finishedSession } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => {
  t = baton;
  repo = dir;
  Object.assign(t.env, { BATON_TEST_CRASH_FILE: join(t.root, 'crash-at') });
});

const SOAK = Number(process.env.BATON_SOAK_KILLS ?? 0) > 0;

/** The running supervisor from now on dies (SIGKILL, by itself) when it reaches `point`; the next one does not. */
async function crashAt(point: string): Promise<void> {
  await t.ok(['daemon', 'start']);
  writeFileSync(join(t.root, 'crash-at'), `${point} ${t.supervisorPid()}\n`);
}

async function mergeEvents(mergeId: string): Promise<string[]> {
  const { events } = await t.client().call('GET /api/workspace/events');
  return events.filter((e) => 'mergeId' in e.data && e.data.mergeId === mergeId).map((e) => e.type);
}

async function live(): Promise<SessionView[]> {
  return t.json<SessionView[]>(['ls']);
}

/** Runs `baton merge` through the kill; the CLI starts the next supervisor and waits there. */
async function mergeThroughKill(
  names: string[],
): Promise<{ code: number; result: MergeResult | undefined; stderr: string }> {
  const run = await t.run(['merge', ...names, '--json'], { cwd: repo });
  const result = run.stdout.trim() === '' ? undefined : (JSON.parse(run.stdout) as MergeResult);
  return { code: run.code, result, stderr: run.stderr };
}

/** The listed result of the merge of `name`, after the restart (newest first). */
async function listed(name: string): Promise<MergeResult> {
  const list = await t.json<MergeListView>(['merge']);
  const found = list.recent.find((r) => r.sessions.some((s) => s.name === name));
  if (found === undefined) throw new Error(`no result for ${name} in ${JSON.stringify(list)}`);
  return found;
}

const LANDED = SOAK
  ? ['merge.base-moved', 'merge.advanced', 'merge.retired', 'merge.finished']
  : ['merge.base-moved'];
const NOT_LANDED = SOAK ? ['merge.started', 'merge.checked'] : ['merge.checked'];

describe('a merge killed at a step boundary', () => {
  it.each(LANDED)('killed at %s: the landing is finished once after the restart', async (point) => {
    configure(t, repo, { merge: { check: 'test -f feature.txt' } });
    const s = await finishedSession(t, repo, 'feat', {
      committed: { 'feature.txt': 'feature\n' },
      uncommitted: { 'notes.txt': 'left\n' },
    });
    const before = t.git(repo, 'rev-parse', 'main');
    await crashAt(point);
    const { code, result, stderr } = await mergeThroughKill(['feat']);
    if (point !== 'merge.finished') expect(stderr).toMatch(/Lost the supervisor during the merge/);
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ outcome: 'landed', previous: before });
    expect(t.git(repo, 'rev-parse', 'main')).toBe(result?.commit);
    expect(t.git(repo, 'show', 'main:notes.txt')).toBe('left');
    // Finished: the session completed and removed, its worktree gone, the event said once.
    expect((await live()).map((x) => x.name)).not.toContain('feat');
    expect(existsSync(s.worktree)).toBe(false);
    const events = await mergeEvents(result!.mergeId);
    expect(events.filter((e) => e === 'merge.landed')).toHaveLength(1);
    expect(events.filter((e) => e === 'merge.failed')).toHaveLength(0);
    expect(await listed('feat')).toMatchObject({ outcome: 'landed', commit: result?.commit });
    // Merging it again is refused for what it is, not "nothing to merge" on a stuck session.
    const again = await t.run(['merge', 'feat'], { cwd: repo });
    expect(again.code).not.toBe(0);
    expect(again.stderr).not.toMatch(/nothing to merge/);
  });

  it.each(NOT_LANDED)(
    'killed at %s: nothing lands, the session can be merged again, and it is said',
    async (point) => {
      configure(t, repo, { merge: { check: 'test -f feature.txt' } });
      const s = await finishedSession(t, repo, 'feat', { committed: { 'feature.txt': 'feature\n' } });
      const before = t.git(repo, 'rev-parse', 'main');
      await crashAt(point);
      const { code, result, stderr } = await mergeThroughKill(['feat']);
      expect(stderr).toMatch(/Lost the supervisor during the merge/);
      expect(code).toBe(4);
      expect(result).toMatchObject({ outcome: 'failed', reason: 'error' });
      expect(result?.message).toMatch(
        /The supervisor stopped .*nothing was landed.*Merge again: baton merge feat/,
      );
      expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
      expect((await live()).find((x) => x.name === 'feat')?.state).toBe('ready_for_review');
      expect(existsSync(s.worktree)).toBe(true);
      expect(await mergeEvents(result!.mergeId)).toContain('merge.failed');
      expect((await listed('feat')).message).toBe(result?.message);
      // No scratch worktree is left in the repository.
      expect(t.git(repo, 'worktree', 'list', '--porcelain')).not.toMatch(/merges/);
      const again = await t.run(['merge', 'feat', '--json'], { cwd: repo });
      expect(again.code, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as MergeResult).outcome).toBe('landed');
    },
  );

  it('killed as soon as it is queued: the next supervisor says it was not landed, and `baton merge` lists it', async () => {
    await finishedSession(t, repo, 'feat', { committed: { 'feature.txt': 'feature\n' } });
    const before = t.git(repo, 'rev-parse', 'main');
    await crashAt('merge.queued');
    const { code } = await mergeThroughKill(['feat']);
    expect(code).not.toBe(0);
    // The next command starts a supervisor, which reconciles the journal before it answers.
    const result = await listed('feat');
    expect(result).toMatchObject({ outcome: 'failed', reason: 'error' });
    expect(result.message).toMatch(/while it waited in the queue; nothing was landed/);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    expect((await live()).find((x) => x.name === 'feat')?.state).toBe('ready_for_review');
  });

  it('a group killed after its first member was retired: the second is retired after the restart, one landing', async () => {
    const a = await finishedSession(t, repo, 'ga', { committed: { 'a.txt': 'a\n' } });
    const b = await finishedSession(t, repo, 'gb', { committed: { 'b.txt': 'b\n' } });
    await crashAt('merge.retired#1');
    const { code, result, stderr } = await mergeThroughKill(['ga', 'gb']);
    expect(code, stderr).toBe(0);
    expect(result?.outcome).toBe('landed');
    expect(t.git(repo, 'show', 'main:a.txt')).toBe('a');
    expect(t.git(repo, 'show', 'main:b.txt')).toBe('b');
    const names = (await live()).map((x) => x.name);
    expect(names).not.toContain('ga');
    expect(names).not.toContain('gb');
    expect(existsSync(a.worktree)).toBe(false);
    expect(existsSync(b.worktree)).toBe(false);
    expect((await mergeEvents(result!.mergeId)).filter((e) => e === 'merge.landed')).toHaveLength(1);
  });

  // The group's other boundary: its check is that of a single merge (above), so only the soak repeats it.
  if (SOAK)
    it('a group killed after its check, before the base moved: neither member lands, both can merge again', async () => {
      await finishedSession(t, repo, 'ga', { committed: { 'a.txt': 'a\n' } });
      await finishedSession(t, repo, 'gb', { committed: { 'b.txt': 'b\n' } });
      const before = t.git(repo, 'rev-parse', 'main');
      await crashAt('merge.checked');
      const { code, result } = await mergeThroughKill(['ga', 'gb']);
      expect(code).toBe(4);
      expect(result?.message).toMatch(/after the check, before the base moved; nothing was landed/);
      expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
      const states = (await live()).filter((x) => x.name === 'ga' || x.name === 'gb').map((x) => x.state);
      expect(states).toEqual(['ready_for_review', 'ready_for_review']);
      const again = await t.run(['merge', 'ga', 'gb', '--json'], { cwd: repo });
      expect(again.code, again.stderr).toBe(0);
    });
});
