import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConflictsView } from '../../src/api/conflicts.js';
import type { BatonEvent } from '../../src/events/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
eachTest((baton) => (t = baton));

const numbered = (n: number, change: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** Dispatches a scripted session that runs `steps` and waits until it is ready for review. */
async function session(
  repo: string,
  name: string,
  steps: unknown[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps, extra)], {
    cwd: repo,
  });
  await t.waitForState(name, 'ready_for_review');
}

const pairOf = (view: ConflictsView, x: string, y: string) =>
  view.conflicts.find(
    (c) => c.b.kind === 'session' && [c.a.name, c.b.name].sort().join() === [x, y].sort().join(),
  );

describe('baton conflicts', () => {
  it('shows two sessions editing the same lines as hot before anyone merges, a disjoint one not at all, and the base moving under one', async () => {
    const repo = t.repo('repo', { 'a.txt': numbered(40), 'b.txt': numbered(40) });
    await session(repo, 'one', [
      { write: { path: 'a.txt', content: numbered(40, { 10: 'one' }) } },
      { run: ['git', 'commit', '-qam', 'one'] },
    ]);
    // Uncommitted work counts as much as committed work.
    await session(repo, 'two', [{ write: { path: 'a.txt', content: numbered(40, { 11: 'two' }) } }]);
    await session(repo, 'three', [
      { write: { path: 'b.txt', content: numbered(40, { 1: 'three' }) } },
      { write: { path: 'c.txt', content: 'new\n' } },
    ]);

    const view = await t.json<ConflictsView>(['conflicts'], { cwd: repo });
    expect(pairOf(view, 'one', 'two')).toMatchObject({
      level: 'hot',
      files: [{ path: 'a.txt', level: 'hot', overlapping: true }],
    });
    expect(pairOf(view, 'one', 'three')).toBeUndefined();
    expect(pairOf(view, 'two', 'three')).toBeUndefined();
    const file = pairOf(view, 'one', 'two')!.files[0]!;
    expect([file.a.diff, file.b.diff].join()).toMatch(/\+one[\s\S]*\+two|\+two[\s\S]*\+one/);
    // The supervisor's own passes (after each session's events) computed the pairs already; this one may answer from the cache.
    expect(view.pass!.sessions).toBe(3);
    expect(view.pass!.pairsChecked + view.pass!.pairsCached).toBe(3);

    const text = await t.run(['conflicts'], { cwd: repo });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^HOT {3}(one ↔ two|two ↔ one) {3}\[repo\]$/m);
    expect(text.stdout).toMatch(/hot +a\.txt .*line 1[01].*line 1[01].*same lines/);
    expect(text.stdout).toMatch(/see both sides' changes: baton conflicts (one|two) --diff/);
    expect(text.stdout).toMatch(/1 collision: 1 hot, 0 soft \(3 live sessions checked in \d+ ms\)\./);
    expect(await t.ok(['conflicts', 'three'], { cwd: repo })).toMatch(
      /^three collides with no live session, with each other or with their base/,
    );
    expect(await t.ok(['conflicts', 'one', '--diff'], { cwd: repo })).toMatch(
      /── two's change to a\.txt ──\n[\s\S]*\+two/,
    );

    // Someone lands a change to the same lines on main: three is now hot against its base.
    writeFileSync(join(repo, 'b.txt'), numbered(40, { 2: 'landed' }));
    t.git(repo, 'commit', '-qam', 'landed on main');
    const moved = await t.json<ConflictsView>(['conflicts', 'three'], { cwd: repo });
    expect(moved.conflicts.map((c) => [c.a.name, c.b.kind, c.level])).toEqual([['three', 'base', 'hot']]);
    expect(moved.conflicts[0]!.files[0]!.b.diff).toContain('+landed');
    // The user's checkout was only read.
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
  });

  it("clears a removed session's conflicts with an event, and names bad input clearly", async () => {
    const repo = t.repo('repo', { 'a.txt': numbered(40) });
    await session(repo, 'one', [{ write: { path: 'a.txt', content: numbered(40, { 10: 'one' }) } }]);
    await session(repo, 'two', [{ write: { path: 'a.txt', content: numbered(40, { 10: 'two' }) } }]);
    expect((await t.json<ConflictsView>(['conflicts'], { cwd: repo })).conflicts).toHaveLength(1);

    await t.ok(['rm', 'two'], { cwd: repo });
    expect((await t.json<ConflictsView>(['conflicts'], { cwd: repo })).conflicts).toEqual([]);
    expect(await t.ok(['conflicts'], { cwd: repo })).toMatch(
      /^No live sessions collide, with each other or with their base \(1 live session checked/,
    );
    const events = jsonLines(await t.ok(['events', '--json'], { cwd: repo })) as WorkspaceEvent[];
    const radar = events
      .filter((e) => e.type.startsWith('radar.'))
      .map((e) => [
        e.type,
        e.type === 'radar.conflict_cleared'
          ? e.data.reason
          : e.type === 'radar.conflict_found'
            ? e.data.level
            : '',
      ]);
    expect(radar).toEqual([
      ['radar.conflict_found', 'hot'],
      ['radar.conflict_cleared', 'removed'],
    ]);

    const unknown = await t.run(['conflicts', 'nope'], { cwd: repo });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/No session matches "nope"/);
    const project = await t.run(['conflicts', '--project', 'elsewhere'], { cwd: repo });
    expect(project.code).toBe(3);
    expect(project.stderr).toMatch(
      /No live session belongs to a project "elsewhere"; projects with live sessions: repo/,
    );
  });

  it('tells both agents what the other is changing when their repository asks for it', async () => {
    const repo = t.repo('repo', {
      'a.txt': numbered(40),
      '.baton/config.json': JSON.stringify({ radar: { tellAgents: true } }),
    });
    const onReply = [{ say: 'heard: {{reply}}' }];
    await session(repo, 'one', [{ write: { path: 'a.txt', content: numbered(40, { 10: 'one' }) } }], {
      onReply,
    });
    await t.ok(
      [
        'dispatch',
        'work on two',
        '--name',
        'two',
        '--script',
        t.script([{ write: { path: 'a.txt', content: numbered(40, { 10: 'two' }) } }], { onReply }),
      ],
      { cwd: repo },
    );
    // The supervisor's own radar notices (the session's events trigger a pass): no command asks it to.
    const told = (name: string): Promise<BatonEvent> =>
      t.waitForEvent(
        name,
        (e) =>
          e.type === 'message.added' &&
          e.role === 'assistant' &&
          e.text.startsWith('heard: [Baton conflict radar]'),
      );
    const [toOne, toTwo] = await Promise.all([told('one'), told('two')]);
    expect(toOne.type === 'message.added' && toOne.text).toMatch(
      /two \(branch baton\/two\), is changing the same lines[\s\S]*a\.txt: your lines 10; theirs 10[\s\S]*\+two/,
    );
    expect(toTwo.type === 'message.added' && toTwo.text).toMatch(/one \(branch baton\/one\)[\s\S]*\+one/);
  });
});

function jsonLines(text: string): unknown[] {
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}
