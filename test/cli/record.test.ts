/**
 * The record of a session's work outlives its worktree (decision 168): a landed session's
 * transcript and handoff still read, `ls --all` finds it; and `baton rm` of a session whose
 * repository is gone removes what is Baton's, keeps the worktree's files, and says what it could
 * not do.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { finishedSession } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('a landed session keeps its record', () => {
  it('transcript, handoff and ls --all work after the merge removed its worktree', async () => {
    const s = await finishedSession(t, repo, 'shipped', { committed: { 'feature.txt': 'feature\n' } });
    const merged = await t.run(['merge', 'shipped'], { cwd: repo });
    expect(merged.code, merged.stderr).toBe(0);
    expect(existsSync(s.worktree)).toBe(false);

    const transcript = await t.run(['transcript', 'shipped', '--md'], { cwd: repo });
    expect(transcript.code, transcript.stderr).toBe(0);
    expect(transcript.stdout).toMatch(/shipped: do the thing/);
    const preview = await t.run(['handoff', 'shipped', '--to', 'scripted', '--preview', 'carry on'], {
      cwd: repo,
    });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/carry on/);

    expect((await t.json<SessionView[]>(['ls'])).map((x) => x.name)).not.toContain('shipped');
    const all = await t.json<(SessionView & { removedAt?: string })[]>(['ls', '--all']);
    expect(all.find((x) => x.name === 'shipped')).toMatchObject({ state: 'completed' });
    expect(all.find((x) => x.name === 'shipped')?.removedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await t.ok(['ls', '--all'])).toMatch(/Landed or removed[^\n]*\n\s+shipped\s+completed\s+removed/);
  });
});

describe('baton rm when the repository is gone', () => {
  it('removes the session, keeps the worktree files, and says what it could not do', async () => {
    const s = await finishedSession(t, repo, 'orphan', { uncommitted: { 'work.txt': 'only copy\n' } });
    // The supervisor may be writing a snapshot's objects into it meanwhile (the radar): retried,
    // as a user's `rm -rf` would be run again.
    rmSync(repo, { recursive: true, force: true, maxRetries: 20 });
    const removed = await t.run(['rm', 'orphan', '--force']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/The repository .* is gone: no snapshot ref could be made/);
    const kept = /The worktree's files were kept in (\S+)\.\n/.exec(removed.stdout)?.[1];
    expect(kept).toBeDefined();
    expect(readFileSync(join(kept!, 'work.txt'), 'utf8')).toBe('only copy\n');
    expect(existsSync(s.worktree)).toBe(false);
    expect((await t.json<SessionView[]>(['ls'])).map((x) => x.name)).not.toContain('orphan');
  });
});
