/**
 * Best-of-N and fan-out through the real binary: scripted sessions write real files in real
 * worktrees of a real repository; the comparison runs the repository's real check in scratch
 * worktrees; a pick lands through the merge queue and archives the others, whose work `baton
 * restore` brings back; a fan-out's failed batch is retried once by the supervisor.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttemptGroupView, FanoutView, GroupSummary } from '../../src/api/attempts.js';
import type { SessionView } from '../../src/api/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

/** Each attempt writes its own name, so the check (and the reader) can tell them apart. */
const attemptScript = (): string =>
  t.script([{ run: 'echo "$BATON_SESSION_NAME" > who.txt' }, { usage: { input: 100, output: 20, usd: 0.02 } }, { say: 'wrote who.txt' }]);

/** Waits for the first workspace event (replayed or live) that matches. */
async function workspaceEvent(match: (event: WorkspaceEvent) => boolean, timeoutMs = 30_000): Promise<WorkspaceEvent> {
  const controller = new AbortController();
  let found: WorkspaceEvent | undefined;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await t.client().followWorkspace(0, (event) => {
      if (found === undefined && match(event)) {
        found = event;
        controller.abort();
      }
    }, controller.signal);
  } finally {
    clearTimeout(timer);
  }
  if (found === undefined) throw new Error('timed out waiting for a workspace event');
  return found;
}

async function liveNames(): Promise<string[]> {
  return (await t.json<SessionView[]>(['ls'], { cwd: repo })).map((s) => s.name);
}

describe('best-of-N', () => {
  it('best-of-3 produces a comparison (check, diff, files, cost), lands the pick and keeps the losers\' work, archived and restorable', async () => {
    configure(t, repo, { merge: { check: 'grep -q fix-a2 who.txt || { echo "who.txt is not fix-a2"; exit 1; }' } });
    const started = await t.json<AttemptGroupView>(['dispatch', '--best-of', '3', '--agents', 'scripted', '--name', 'fix', '--script', attemptScript(), 'fix the watcher'], { cwd: repo });
    expect(started.attempts.map((a) => [a.name, a.agent])).toEqual([['fix-a1', 'scripted'], ['fix-a2', 'scripted'], ['fix-a3', 'scripted']]);
    for (const a of started.attempts) await t.waitForState(a.name, 'ready_for_review');

    const compared = await t.json<AttemptGroupView>(['attempts', 'show', started.id], { cwd: repo });
    expect(compared.attempts.map((a) => a.check.outcome)).toEqual(['failed', 'passed', 'failed']);
    expect(compared.attempts[0]!.check.outputTail).toContain('who.txt is not fix-a2');
    for (const a of compared.attempts) {
      expect(a).toMatchObject({ state: 'ready_for_review', archived: false, winner: false, diff: { files: ['who.txt'], additions: 1, deletions: 0 }, inputTokens: 100, outputTokens: 20, costUsd: 0.02 });
    }
    // The checks ran in scratch copies: the attempts' own worktrees hold only their work.
    const losers = await Promise.all(['fix-a1', 'fix-a3'].map(async (name) => (await t.client().call('GET /api/sessions/:ref', { params: { ref: name } })).session));
    expect(readFileSync(join(losers[0]!.worktree, 'who.txt'), 'utf8')).toBe('fix-a1\n');
    expect(t.git(losers[0]!.worktree, 'status', '--porcelain')).toBe('?? who.txt');
    const text = await t.ok(['attempts', 'show', started.id], { cwd: repo });
    expect(text).toMatch(/fix-a2\s+scripted\s+ready for review\s+passed/);
    expect(text).toMatch(/fix-a1: `grep -q fix-a2 who.txt .*` failed \(exit 1\)/);
    expect(text).toContain('Pick the winner: baton attempts pick <attempt>');
    const listed = await t.json<GroupSummary[]>(['attempts', 'ls'], { cwd: repo });
    expect(listed.map((g) => [g.id, g.state, g.sessions])).toEqual([[started.id, 'open', 3]]);

    const picked = await t.run(['attempts', 'pick', 'fix-a2', '--json'], { cwd: repo });
    expect(picked.code).toBe(0);
    const settled = JSON.parse(picked.stdout) as { outcome: string; archived: { name: string; snapshotRef: string | null }[] };
    expect(settled.outcome).toBe('landed');
    expect(settled.archived.map((a) => [a.name, a.snapshotRef])).toEqual([['fix-a1', 'refs/baton/snapshots/fix-a1'], ['fix-a3', 'refs/baton/snapshots/fix-a3']]);
    expect(t.git(repo, 'show', 'main:who.txt')).toBe('fix-a2');
    expect(await liveNames()).toEqual([]);
    for (const session of losers) expect(existsSync(session.worktree)).toBe(false);

    const after = await t.json<AttemptGroupView>(['attempts', 'show', started.id], { cwd: repo });
    expect(after.state).toBe('landed');
    expect(after.attempts.map((a) => [a.name, a.winner, a.archived, a.check.outcome, a.diff.files])).toEqual([
      ['fix-a1', false, true, 'failed', ['who.txt']],
      ['fix-a2', true, false, 'passed', ['who.txt']],
      ['fix-a3', false, true, 'failed', ['who.txt']],
    ]);
    // A loser's work comes back whole.
    const restored = JSON.parse(await t.ok(['restore', 'fix-a3', '--json'], { cwd: repo })) as { worktree: string };
    expect(readFileSync(join(restored.worktree, 'who.txt'), 'utf8')).toBe('fix-a3\n');
    const types = (await t.client().call('GET /api/workspace/events')).events.map((e) => e.type).filter((type) => type.startsWith('attempt.'));
    expect(types).toEqual(['attempt.started', 'attempt.picked', 'attempt.settled']);
    expect(await t.ok(['events'], { cwd: repo })).toMatch(/attempt\.settled\s+\S+: fix-a2 landed; archived fix-a1, fix-a3 with their work kept/);
  });
});
