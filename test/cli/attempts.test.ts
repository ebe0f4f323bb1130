/**
 * Best-of-N and fan-out through the real binary: scripted sessions write real files in real
 * worktrees of a real repository; the comparison runs the repository's real check in scratch
 * worktrees; a pick lands through the merge queue and archives the others, whose work `baton
 * restore` brings back; a fan-out's failed batch is retried once by the supervisor.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttemptGroupView, FanoutView, GroupSummary } from '../../src/api/attempts.js';
import type { SessionView } from '../../src/api/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, sharedHome, TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';
import { waitForFile } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

/** Each attempt writes its own name, so the check (and the reader) can tell them apart. */
const attemptScript = (): string =>
  t.script([
    { run: 'echo "$BATON_SESSION_NAME" > who.txt' },
    { usage: { input: 100, output: 20, usd: 0.02 } },
    { say: 'wrote who.txt' },
  ]);

const workspaceEvent = (
  match: (event: WorkspaceEvent) => boolean,
  timeoutMs?: number,
): Promise<WorkspaceEvent> => t.workspaceEvent(match, timeoutMs);

async function liveNames(): Promise<string[]> {
  return (await t.json<SessionView[]>(['ls'], { cwd: repo })).map((s) => s.name);
}

describe('best-of-N', () => {
  it("best-of-3 produces a comparison (check, diff, files, cost), lands the pick and keeps the losers' work, archived and restorable", async () => {
    configure(t, repo, {
      merge: { check: 'grep -q fix-a2 who.txt || { echo "who.txt is not fix-a2"; exit 1; }' },
    });
    const started = await t.json<AttemptGroupView>(
      [
        'dispatch',
        '--best-of',
        '3',
        '--agents',
        'scripted',
        '--name',
        'fix',
        '--script',
        attemptScript(),
        'fix the watcher',
      ],
      { cwd: repo },
    );
    expect(started.attempts.map((a) => [a.name, a.agent])).toEqual([
      ['fix-a1', 'scripted'],
      ['fix-a2', 'scripted'],
      ['fix-a3', 'scripted'],
    ]);
    for (const a of started.attempts) await t.waitForState(a.name, 'ready_for_review');

    const compared = await t.json<AttemptGroupView>(['attempts', 'show', started.id], { cwd: repo });
    expect(compared.attempts.map((a) => a.check.outcome)).toEqual(['failed', 'passed', 'failed']);
    expect(compared.attempts[0]!.check.outputTail).toContain('who.txt is not fix-a2');
    for (const a of compared.attempts) {
      expect(a).toMatchObject({
        state: 'ready_for_review',
        archived: false,
        winner: false,
        diff: { files: ['who.txt'], additions: 1, deletions: 0 },
        inputTokens: 100,
        outputTokens: 20,
        costUsd: 0.02,
      });
    }
    // The checks ran in scratch copies: the attempts' own worktrees hold only their work.
    const losers = await Promise.all(
      ['fix-a1', 'fix-a3'].map(
        async (name) => (await t.client().call('GET /api/sessions/:ref', { params: { ref: name } })).session,
      ),
    );
    expect(readFileSync(join(losers[0]!.worktree, 'who.txt'), 'utf8')).toBe('fix-a1\n');
    expect(t.git(losers[0]!.worktree, 'status', '--porcelain')).toBe('?? who.txt');
    const text = await t.ok(['attempts', 'show', started.id], { cwd: repo });
    expect(text).toMatch(/fix-a2\s+scripted\s+ready for review\s+passed/);
    expect(text).toMatch(/fix-a1: `grep -q fix-a2 who.txt .*` failed \(exit 1\)/);
    expect(text).toContain('Pick the winner: baton attempts pick <attempt>');
    const listed = await t.json<GroupSummary[]>(['attempts', 'ls'], { cwd: repo });
    expect(listed.map((g) => [g.id, g.state, g.sessions])).toEqual([[started.id, 'open', 3]]);

    const picked = await t.run(['attempts', 'pick', 'fix-a2', '--json'], { cwd: repo });
    expect(picked.code, picked.stderr).toBe(0);
    const settled = JSON.parse(picked.stdout) as {
      outcome: string;
      archived: { name: string; snapshotRef: string | null }[];
    };
    expect(settled.outcome).toBe('landed');
    expect(settled.archived.map((a) => [a.name, a.snapshotRef])).toEqual([
      ['fix-a1', 'refs/baton/snapshots/fix-a1'],
      ['fix-a3', 'refs/baton/snapshots/fix-a3'],
    ]);
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
    const restored = JSON.parse(await t.ok(['restore', 'fix-a3', '--json'], { cwd: repo })) as {
      worktree: string;
    };
    expect(readFileSync(join(restored.worktree, 'who.txt'), 'utf8')).toBe('fix-a3\n');
    const types = (await t.client().call('GET /api/workspace/events')).events
      .map((e) => e.type)
      .filter((type) => type.startsWith('attempt.'));
    expect(types).toEqual(['attempt.started', 'attempt.picked', 'attempt.settled']);
    expect(await t.ok(['events'], { cwd: repo })).toMatch(
      /attempt\.settled\s+\S+: fix-a2 landed; archived fix-a1, fix-a3 with their work kept/,
    );
  });
});

describe('best-of-N, more', () => {
  it('shows conflicts with other live work (not between the attempts), and a pick that does not land archives nothing', async () => {
    configure(t, repo, { merge: { check: 'test "$(cat who.txt)" = never' } });
    const other = await t.json<SessionView>(
      [
        'dispatch',
        'other work',
        '--name',
        'other',
        '--script',
        t.script([{ write: { path: 'who.txt', content: 'other\n' } }]),
      ],
      { cwd: repo },
    );
    await t.waitForState(other.name, 'ready_for_review');
    const started = await t.json<AttemptGroupView>(
      ['dispatch', '--best-of', '2', '--name', 'try', '--script', attemptScript(), 'write who'],
      { cwd: repo },
    );
    for (const a of started.attempts) await t.waitForState(a.name, 'ready_for_review');
    // The radar passes after sessions change; both attempts collide with `other` in who.txt.
    await workspaceEvent(
      (e) =>
        e.type === 'radar.conflict_found' &&
        [e.data.a.name, e.data.b.name].includes('try-a2') &&
        [e.data.a.name, e.data.b.name].includes('other'),
    );
    await workspaceEvent(
      (e) =>
        e.type === 'radar.conflict_found' &&
        [e.data.a.name, e.data.b.name].includes('try-a1') &&
        [e.data.a.name, e.data.b.name].includes('other'),
    );
    const compared = await t.json<AttemptGroupView>(['attempts', 'show', started.id, '--no-check'], {
      cwd: repo,
    });
    for (const a of compared.attempts) {
      expect(a.conflicts).toEqual([{ with: 'other', level: 'hot', files: ['who.txt'] }]);
      expect(a.check.outcome).toBe('pending');
    }

    const before = t.git(repo, 'rev-parse', 'main');
    const picked = await t.run(['attempts', 'pick', 'try-a1'], { cwd: repo });
    expect(picked.code, picked.stderr).toBe(4);
    expect(picked.stderr).toMatch(/try-a1 did not land: .*Nothing was archived; pick again/);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    expect((await liveNames()).sort()).toEqual(['other', 'try-a1', 'try-a2']);
    const after = await t.json<AttemptGroupView>(['attempts', 'show', started.id], { cwd: repo });
    expect(after.state).toBe('pick_failed');
    expect(after.attempts.map((a) => [a.archived, a.check.outcome])).toEqual([
      [false, 'failed'],
      [false, 'failed'],
    ]);
  });

  it('a pick cut short by a supervisor restart leaves the group open to pick again, nothing archived', async () => {
    const gate = join(t.root, 'gate');
    execFileSync('mkfifo', [gate]);
    // The check waits on the gate the first time it runs.
    configure(t, repo, {
      merge: {
        check: [
          'sh',
          '-c',
          'if [ ! -e "$1" ]; then read go < "$0"; touch "$1"; fi',
          gate,
          join(t.root, 'passed'),
        ],
      },
    });
    const started = await t.json<AttemptGroupView>(
      ['dispatch', '--best-of', '2', '--name', 'cut', '--script', attemptScript(), 'write who'],
      { cwd: repo },
    );
    for (const a of started.attempts) await t.waitForState(a.name, 'ready_for_review');
    const picked = await t.client(repo).call('POST /api/attempts/pick', { body: { session: 'cut-a1' } });
    await workspaceEvent((e) => e.type === 'merge.checking' && e.data.mergeId === picked.mergeId);
    await t.ok(['daemon', 'stop']);
    writeFileSync(gate, 'go\n');
    await t.ok(['daemon', 'start']);
    const settled = await workspaceEvent(
      (e) => e.type === 'attempt.settled' && e.data.groupId === started.id,
    );
    if (settled.type !== 'attempt.settled') throw new Error(`unexpected ${settled.type}`);
    expect(settled.data).toMatchObject({ outcome: 'not_landed', archived: [] });
    expect(settled.data.message).toContain('The supervisor restarted while it merged.');
    const open = await t.json<AttemptGroupView>(['attempts', 'show', started.id, '--no-check'], {
      cwd: repo,
    });
    expect(open.state).toBe('pick_failed');
    expect(open.attempts.map((a) => a.archived)).toEqual([false, false]);
    const again = await t.run(['attempts', 'pick', 'cut-a1'], { cwd: repo });
    expect(again.code, again.stderr).toBe(0);
    expect(t.git(repo, 'show', 'main:who.txt')).toBe('cut-a1');
    expect(await liveNames()).toEqual([]);
  });

  it('stores the task it is for and takes options per agent (over the API)', async () => {
    await t.ok(['daemon', 'start']);
    const group = await t.client(repo).call('POST /api/attempts', {
      body: {
        prompt: 'mixed',
        cwd: repo,
        agents: ['scripted', 'scripted'],
        name: 'mix',
        taskId: 'ABC-12',
        options: { scripted: { script: { steps: [{ say: 'hi' }] } } },
      },
    });
    expect(group).toMatchObject({ taskId: 'ABC-12', kind: 'best_of', state: 'open', sessions: 2 });
    const listed = await t.json<GroupSummary[]>(['attempts', 'ls'], { cwd: repo });
    expect(listed[0]).toMatchObject({ id: group.id, taskId: 'ABC-12' });
    expect(await t.ok(['attempts', 'ls'], { cwd: repo })).toContain('(task ABC-12)');
  });
});

describe('fan-out', () => {
  const items = (n: number, extra = ''): string => {
    const file = join(t.root, `items-${n}.txt`);
    writeFileSync(
      file,
      `# files to update\n\n${Array.from({ length: n }, (_, i) => `src/file-${i + 1}.ts`).join('\n')}\n${extra}`,
    );
    return file;
  };
  /** Each batch writes down the items its prompt gave it, so the report's diff is the batch's own. */
  const batchScript = (requires: unknown[] = []): string =>
    // A fixed file name: the gate asks before a write whose path is only known at run time.
    t.script([
      ...requires,
      { run: 'echo "$BATON_SESSION_NAME" > done.txt' },
      { say: 'Updated the imports of my batch.' },
    ]);

  it('25 items in batches of 10 make 3 sessions and one report', async () => {
    const started = await t.json<FanoutView>(
      [
        'fanout',
        items(25),
        '--batch',
        '10',
        '--name',
        'imp',
        '--prompt',
        'update the import in each file',
        '--script',
        batchScript(),
      ],
      { cwd: repo },
    );
    expect(started.batches.map((b) => [b.batch, b.items.length, b.tries.map((x) => x.name)])).toEqual([
      [1, 10, ['imp-b1']],
      [2, 10, ['imp-b2']],
      [3, 5, ['imp-b3']],
    ]);
    const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'imp-b3' } });
    expect(session.prompt).toContain('update the import in each file');
    expect(session.prompt).toContain('batch 3 of 3');
    expect(session.prompt).toContain('- src/file-25.ts');
    expect(session.prompt).not.toContain('src/file-20.ts');
    const finished = await workspaceEvent(
      (e) => e.type === 'attempt.fanout_finished' && e.data.groupId === started.id,
    );
    expect(finished.data).toMatchObject({ batches: 3, done: 3, failed: 0 });

    const report = await t.json<FanoutView>(['fanout', 'show', started.id], { cwd: repo });
    expect(report).toMatchObject({
      state: 'finished',
      items: 25,
      batchSize: 10,
      done: 3,
      failed: 0,
      running: 0,
      agent: 'scripted',
    });
    for (const b of report.batches) {
      expect(b.state).toBe('done');
      expect(b.finalMessage).toBe('Updated the imports of my batch.');
      expect(b.diff).toEqual({ files: ['done.txt'], additions: 1, deletions: 0 });
    }
    const markdown = await t.ok(['fanout', 'show', started.id], { cwd: repo });
    expect(markdown).toMatch(/^# Fan-out \S+ \(repo\)/);
    expect(markdown).toContain(
      '25 items in 3 batches of up to 10, agent scripted: 3 done, 0 failed, 0 running; 0 of 25 items finished.',
    );
    expect(markdown).toContain(
      '## Batch 3: done\n\n- sessions: imp-b3 (ready for review)\n- items: src/file-21.ts, src/file-22.ts, src/file-23.ts, src/file-24.ts, src/file-25.ts (0 finished)',
    );
    expect(markdown).toContain('> Updated the imports of my batch.');
    const listed = await t.json<GroupSummary[]>(['fanout', 'ls'], { cwd: repo });
    expect(listed.map((g) => [g.id, g.kind, g.state, g.sessions])).toEqual([
      [started.id, 'fanout', 'finished', 3],
    ]);
  });

  it('retries a failed batch once, then lists it as failed; a retry that passes counts as done', async () => {
    // Batch 2 fails both times; batch 3 only on its first try, after finishing two of its items.
    const flaky = {
      require: [
        'sh',
        '-c',
        'case "$BATON_SESSION_NAME" in *-b2|*-b2-retry|*-b3) echo "cannot update these"; exit 1;; esac',
      ],
    };
    const started = await t.json<FanoutView>(
      [
        'fanout',
        items(25),
        '--batch',
        '10',
        '--name',
        'up',
        '--prompt',
        'update',
        '--script',
        // Only batch 3 holds these two items: the ledger counts them for it alone (decision 301).
        batchScript([{ say: 'done: src/file-21.ts\ndone: src/file-22.ts' }, flaky]),
      ],
      { cwd: repo },
    );
    const finished = await workspaceEvent(
      (e) => e.type === 'attempt.fanout_finished' && e.data.groupId === started.id,
    );
    expect(finished.data).toMatchObject({ batches: 3, done: 2, failed: 1 });
    const retried = (await t.client().call('GET /api/workspace/events')).events.filter(
      (e) => e.type === 'attempt.batch_retried',
    );
    // In the order the batches failed, which their sessions decide: compared by batch.
    expect(
      retried
        .map((e) =>
          e.type === 'attempt.batch_retried' ? [e.data.batch, e.data.failed.name, e.data.retry.name] : [],
        )
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    ).toEqual([
      [2, 'up-b2', 'up-b2-retry'],
      [3, 'up-b3', 'up-b3-retry'],
    ]);
    const report = await t.json<FanoutView>(['fanout', 'show', started.id], { cwd: repo });
    expect(report.batches.map((b) => [b.batch, b.state, b.tries.map((x) => `${x.name}:${x.state}`)])).toEqual(
      [
        [1, 'done', ['up-b1:ready_for_review']],
        [2, 'failed', ['up-b2:failed', 'up-b2-retry:failed']],
        [3, 'done', ['up-b3:failed', 'up-b3-retry:ready_for_review']],
      ],
    );
    expect(report).toMatchObject({ done: 2, failed: 1, running: 0, itemsFinished: 2 });
    expect(report.batches[2]!.finished).toEqual(['src/file-21.ts', 'src/file-22.ts']);
    // The retry is given only what its first try left: nothing finished is done again.
    const { session: retry } = await t
      .client()
      .call('GET /api/sessions/:ref', { params: { ref: 'up-b3-retry' } });
    expect(retry.prompt).not.toContain('- src/file-21.ts');
    expect(retry.prompt).not.toContain('- src/file-22.ts');
    expect(retry.prompt).toContain('- src/file-23.ts\n- src/file-24.ts\n- src/file-25.ts\n');
    expect(retry.prompt).toContain(
      'An earlier try finished src/file-21.ts, src/file-22.ts: leave them as they are.',
    );
    const { session: retry2 } = await t
      .client()
      .call('GET /api/sessions/:ref', { params: { ref: 'up-b2-retry' } });
    expect(retry2.prompt).toContain('- src/file-11.ts');
    const markdown = await t.ok(['fanout', 'show', started.id], { cwd: repo });
    expect(markdown).toContain(
      '## Batch 2: failed\n\n- sessions: up-b2 (failed), then up-b2-retry (failed) (retried once)',
    );
  });
});

describe('fan-out across a supervisor restart', () => {
  it('a batch that failed while no supervisor ran is retried when one starts', async () => {
    const gate = join(t.root, 'gate');
    execFileSync('mkfifo', [gate]);
    const file = join(t.root, 'items.txt');
    writeFileSync(file, 'only\n');
    // The first try waits on the gate, then fails; the retry passes at once.
    const script = t.script([
      {
        require: [
          'sh',
          '-c',
          'case "$BATON_SESSION_NAME" in *-retry) exit 0;; esac; read go < "$0"; exit 1',
          gate,
        ],
      },
      { say: 'done' },
    ]);
    const started = await t.json<FanoutView>(
      ['fanout', file, '--batch', '1', '--name', 'rs', '--prompt', 'p', '--script', script],
      { cwd: repo },
    );
    const first = started.batches[0]!.tries[0]!;
    await t.waitForEvent(first.name, (e) => e.type === 'tool.started');
    await t.ok(['daemon', 'stop']);
    writeFileSync(gate, 'go\n');
    await waitForFile(join(t.home, 'sessions', first.sessionId, 'events.jsonl'), () =>
      /"to":"failed"/.test(readFileSync(join(t.home, 'sessions', first.sessionId, 'events.jsonl'), 'utf8')),
    );
    await t.ok(['daemon', 'start']);
    const retried = await workspaceEvent(
      (e) => e.type === 'attempt.batch_retried' && e.data.groupId === started.id,
    );
    expect(retried.data).toMatchObject({
      batch: 1,
      failed: { name: 'rs-b1' },
      retry: { name: 'rs-b1-retry' },
    });
    const finished = await workspaceEvent(
      (e) => e.type === 'attempt.fanout_finished' && e.data.groupId === started.id,
    );
    expect(finished.data).toMatchObject({ batches: 1, done: 1, failed: 0 });
  });
});

describe('fan-out under the scheduler', () => {
  it('starts batches only as slots free up (BATON_MAX_CONCURRENT=1)', async () => {
    const one = new TestBaton({ BATON_MAX_CONCURRENT: '1' });
    try {
      const dir = one.repo();
      const file = join(one.root, 'items.txt');
      writeFileSync(file, 'a\nb\nc\n');
      const script = one.script([{ ask: 'Which style?' }, { say: 'Done with my batch.' }]);
      const started = JSON.parse(
        await one.ok(
          [
            'fanout',
            file,
            '--batch',
            '1',
            '--name',
            'slot',
            '--prompt',
            'style each',
            '--script',
            script,
            '--json',
          ],
          { cwd: dir },
        ),
      ) as FanoutView;
      expect(started.batches.map((b) => b.tries[0]!.name)).toEqual(['slot-b1', 'slot-b2', 'slot-b3']);
      // Each batch asks and holds its slot until answered; the next one starts only then.
      for (const [i, name] of ['slot-b1', 'slot-b2', 'slot-b3'].entries()) {
        await one.waitForState(name, 'needs_input');
        const states = (JSON.parse(await one.ok(['ls', '--json'], { cwd: dir })) as SessionView[]).map(
          (s) => `${s.name}:${s.state}`,
        );
        expect(states.filter((s) => s.endsWith(':queued'))).toEqual(
          ['slot-b1', 'slot-b2', 'slot-b3'].slice(i + 1).map((n) => `${n}:queued`),
        );
        await one.ok(['reply', name, 'tabs'], { cwd: dir });
      }
      await one.waitForState('slot-b3', 'ready_for_review');
      const report = JSON.parse(
        await one.ok(['fanout', 'show', started.id, '--json'], { cwd: dir }),
      ) as FanoutView;
      expect(report.batches.map((b) => [b.items, b.state, b.finalMessage])).toEqual([
        [['a'], 'done', 'Done with my batch.'],
        [['b'], 'done', 'Done with my batch.'],
        [['c'], 'done', 'Done with my batch.'],
      ]);
    } finally {
      one.cleanup();
    }
  });
});

describe('attempts: bad input is refused, naming the problem, and starts nothing', () => {
  // Refused before anything is made, each in its own repository: one home and supervisor for the
  // three (decision 422).
  describe('refused before anything is made', () => {
    sharedHome((baton, dir) => ((t = baton), (repo = dir)));

    it('N over the cap, a bad count, unknown agents, a mismatched agent list', async () => {
      const over = await t.run(['dispatch', '--best-of', '9', 'too many'], { cwd: repo });
      expect(over.code).toBe(2);
      expect(over.stderr).toContain("--best-of 9 is over this repository's cap of 8 attempts");
      configure(t, repo, { attempts: { maxAttempts: 2 } });
      const capped = await t.run(['dispatch', '--best-of', '3', 'three'], { cwd: repo });
      expect(capped.stderr).toContain(
        'cap of 2 attempts; ask for fewer, or raise attempts.maxAttempts in .baton/config.json',
      );
      for (const [args, message] of [
        [['--best-of', '0'], '--best-of takes a whole number of at least 1, got "0"'],
        [['--best-of', 'two'], '--best-of takes a whole number of at least 1, got "two"'],
        [['--best-of', '1'], '--best-of needs at least 2 attempts'],
        [
          ['--agents', 'scripted,aider'],
          'Unknown agent "aider": Baton\'s agents are scripted, claude, codex, gemini, opencode, qwen, copilot.',
        ],
        [
          ['--best-of', '2', '--agents', 'scripted,scripted,scripted'],
          '--agents names 3 agents for 2 attempts',
        ],
        [['--best-of', '2', '--in-place'], 'cannot be combined with --in-place'],
      ] as const) {
        const run = await t.run(['dispatch', ...args, 'prompt'], { cwd: repo });
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr).toContain(message);
      }
      // The API says the same of an unknown agent.
      await expect(
        t
          .client(repo)
          .call('POST /api/attempts', { body: { prompt: 'p', cwd: repo, agents: ['scripted', 'aider'] } }),
      ).rejects.toThrow(
        /Unknown agent "aider": Baton's agents are scripted, claude, codex, gemini, opencode, qwen, copilot/,
      );
      expect(await liveNames()).toEqual([]);
      expect(await t.json<GroupSummary[]>(['attempts', 'ls'], { cwd: repo })).toEqual([]);
    });

    it('a bad attempts key in .baton/config.json is named', async () => {
      configure(t, repo, { attempts: { maxAttemps: 3 } });
      const run = await t.run(['dispatch', '--best-of', '2', 'p'], { cwd: repo });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/attempts.*maxAttemps/);
      expect(await liveNames()).toEqual([]);
    });

    it('empty or comment-only item files, a missing one, too many batches, no prompt', async () => {
      const empty = join(t.root, 'empty.txt');
      writeFileSync(empty, '');
      const comments = join(t.root, 'comments.txt');
      writeFileSync(comments, '# only a comment\n\n   \n');
      const many = join(t.root, 'many.txt');
      writeFileSync(many, Array.from({ length: 60 }, (_, i) => `item-${i}`).join('\n'));
      for (const [args, message] of [
        [['fanout', empty, '--prompt', 'x'], 'has no items: put one item per line'],
        [['fanout', comments, '--prompt', 'x'], 'has no items'],
        [['fanout', join(t.root, 'nope.txt'), '--prompt', 'x'], 'Cannot read the item file'],
        [
          ['fanout', many, '--prompt', 'x', '--batch', '1'],
          "60 items in batches of 1 make 60 batches, over this repository's cap of 50",
        ],
        [['fanout', many, '--prompt', 'x', '--batch', '0'], '--batch takes a whole number of at least 1'],
        [['fanout', many], 'baton fanout needs --prompt'],
        [['fanout', 'show', 'zzzzzz'], 'No fan-out matches "zzzzzz"'],
        [['attempts', 'show', 'zzzzzz'], 'No best-of group matches "zzzzzz"'],
      ] as const) {
        const run = await t.run([...args], { cwd: repo });
        expect(run.code, args.join(' ')).not.toBe(0);
        expect(run.stderr).toContain(message);
      }
      expect(await liveNames()).toEqual([]);
    });
  });

  it('picking a session outside the group, or outside any group, changes nothing', async () => {
    const script = t.script([{ write: { path: 'x.txt', content: 'x\n' } }]);
    const one = await t.json<AttemptGroupView>(
      ['dispatch', '--best-of', '2', '--name', 'one', '--script', script, 'one'],
      { cwd: repo },
    );
    await t.json<AttemptGroupView>(
      ['dispatch', '--best-of', '2', '--name', 'two', '--script', script, 'two'],
      { cwd: repo },
    );
    const plain = await t.json<SessionView>(['dispatch', 'plain', '--name', 'plain', '--script', script], {
      cwd: repo,
    });
    for (const name of ['one-a1', 'one-a2', 'two-a1', 'two-a2', plain.name])
      await t.waitForState(name, 'ready_for_review');
    const before = t.git(repo, 'rev-parse', 'main');
    const elsewhere = await t.run(['attempts', 'pick', 'two-a1', '--group', one.id], { cwd: repo });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`two-a1 is not an attempt of group ${one.id}`);
    const outside = await t.run(['attempts', 'pick', 'plain'], { cwd: repo });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('plain is not an attempt of any best-of group');
    const unknown = await t.run(['attempts', 'pick', 'nobody'], { cwd: repo });
    expect(unknown.code).toBe(3);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    expect((await liveNames()).sort()).toEqual(['one-a1', 'one-a2', 'plain', 'two-a1', 'two-a2']);
    const groups = await t.json<GroupSummary[]>(['attempts', 'ls'], { cwd: repo });
    expect(groups.map((g) => g.state)).toEqual(['open', 'open']);
  });
});

describe('best-of on a task', () => {
  it('starts N sessions of the task, each recording it, as one compared group; a task at work is refused', async () => {
    await t.ok(['task', 'add', 'fix the watcher', '--description', 'keep onChange'], { cwd: repo });
    const started = await t.json<AttemptGroupView>(
      [
        'task',
        'start',
        '1',
        '--best-of',
        '2',
        '--agents',
        'scripted',
        '--name',
        'watch',
        '--script',
        attemptScript(),
      ],
      { cwd: repo },
    );
    expect(started).toMatchObject({ taskId: '1' });
    expect(started.attempts.map((a) => a.name)).toEqual(['watch-a1', 'watch-a2']);
    for (const a of started.attempts) await t.waitForState(a.name, 'ready_for_review');
    const sessions = (await t.json<SessionView[]>(['ls'], { cwd: repo })).filter((s) =>
      s.name.startsWith('watch-'),
    );
    expect(sessions.map((s) => [s.name, s.task?.id, s.prompt])).toEqual([
      ['watch-a1', 1, 'fix the watcher\n\nkeep onChange'],
      ['watch-a2', 1, 'fix the watcher\n\nkeep onChange'],
    ]);
    const card = await t.json<{ task: { sessions: { name: string }[]; column: string } }>(
      ['task', 'show', '1'],
      { cwd: repo },
    );
    expect(card.task.sessions.map((s) => s.name).sort()).toEqual(['watch-a1', 'watch-a2']);
    const again = await t.run(['task', 'start', '1', '--best-of', '2', '--agents', 'scripted'], {
      cwd: repo,
    });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already being worked on by watch-a\d \(ready for review\)/);
  });
});
