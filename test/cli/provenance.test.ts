/**
 * Agent blame through the real binary: scripted sessions write overlapping lines of one file over
 * several turns, land in different modes (a fast-forward, a squash, a merge commit, a group, a
 * handoff's successor), and `baton blame` names the session, turn and prompt of every line — and
 * git's own author for the lines no session wrote. The provenance lives in git (notes under
 * refs/notes/baton), so it is read back after the sessions are gone.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BlameView, WhyView } from '../../src/api/provenance.js';
import type { MergeResult } from '../../src/api/merge.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const lines = (...text: string[]): string => `${text.join('\n')}\n`;
const BASE = ['base 1', 'base 2', 'base 3', 'base 4', 'base 5', 'base 6', 'base 7', 'base 8'];
const withLines = (changes: Record<number, string>): string =>
  lines(...BASE.map((line, i) => changes[i + 1] ?? line));

/** The file as a person committed it on main before any session. */
function commitBase(): void {
  writeFileSync(join(repo, 'app.txt'), lines(...BASE));
  t.git(repo, 'add', 'app.txt');
  t.git(
    repo,
    '-c',
    'user.name=Pat Person',
    '-c',
    'user.email=pat@example.com',
    'commit',
    '-qm',
    'the base file',
  );
}

/** Waits until turn `turn` of `name` is on its provenance chain. */
const recorded = (name: string, turn: number) =>
  t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === name && e.data.turn === turn);

async function dispatch(name: string, prompt: string, steps: unknown[], onReply?: unknown[]): Promise<void> {
  await t.ok(
    [
      'dispatch',
      prompt,
      '--name',
      name,
      '--script',
      t.script(steps, onReply === undefined ? {} : { onReply }),
    ],
    { cwd: repo },
  );
  await t.waitForState(name, 'ready_for_review');
  await recorded(name, 1);
}

async function merge(args: string[]): Promise<MergeResult> {
  const result = JSON.parse(await t.ok(['merge', ...args, '--json'], { cwd: repo })) as MergeResult;
  expect(result.outcome).toBe('landed');
  return result;
}

/** Each line as `<session>/<turn>: <prompt>`, or `person: <author>` when no session wrote it. */
async function blame(file: string): Promise<string[]> {
  const view = JSON.parse(await t.ok(['blame', file, '--json'], { cwd: repo })) as BlameView;
  return view.lines.map((l) =>
    l.turn === null ? `person: ${l.author}` : `${l.turn.name}/${l.turn.turn}: ${l.turn.prompt}`,
  );
}

describe('baton blame', () => {
  it('names the session, turn and prompt of every line after three sessions with overlapping edits land by fast-forward, squash and merge commit', async () => {
    // s3 is left behind by the landings before it, so it lands by a merge commit: keep-fresh
    // (decision 307) would rebase it first and make that a fast-forward.
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'config.json'), JSON.stringify({ keepFresh: { enabled: false } }));
    commitBase();
    // s1: turn 1 writes lines 1-2; its reply turn rewrites line 3 with the reply's words.
    await dispatch(
      's1',
      's1: write the header',
      [{ write: { path: 'app.txt', content: withLines({ 1: 's1 one', 2: 's1 two' }) } }],
      [
        { write: { path: 'app.txt', content: withLines({ 1: 's1 one', 2: 's1 two', 3: '{{reply}}' }) } },
        { say: 'Done, as decision 12 says.' },
      ],
    );
    await t.ok(['reply', 's1', 's1 three from the reply'], { cwd: repo });
    await recorded('s1', 2);
    await t.waitForState('s1', 'ready_for_review');
    const ff = await merge(['s1']);
    // Nothing moved main meanwhile: a fast-forward, the session's own commit on main.
    expect(t.git(repo, 'log', '-1', '--format=%P', ff.commit!).split(' ')).toHaveLength(1);

    // s2 and s3 start from the same main; s2 rewrites s1's line 2 and adds a file, s3 changes
    // lines 7 (committed by the agent itself) and 8 (left on disk).
    const after1 = withLines({ 1: 's1 one', 2: 's1 two', 3: 's1 three from the reply' });
    const s1Lines = after1.split('\n').slice(0, 8);
    await dispatch('s2', 's2: rename the second line', [
      { write: { path: 'app.txt', content: lines(...s1Lines.map((l, i) => (i === 1 ? 's2 two' : l))) } },
      { write: { path: 'lib.txt', content: lines('lib a', 'lib b') } },
    ]);
    await dispatch('s3', 's3: fix the tail', [
      { write: { path: 'app.txt', content: lines(...s1Lines.map((l, i) => (i === 6 ? 's3 seven' : l))) } },
      { run: ['git', 'add', 'app.txt'] },
      {
        run: [
          'git',
          '-c',
          'user.name=Agent',
          '-c',
          'user.email=agent@example.com',
          'commit',
          '-qm',
          'agent commit',
        ],
      },
      {
        write: {
          path: 'app.txt',
          content: lines(...s1Lines.map((l, i) => (i === 6 ? 's3 seven' : i === 7 ? 's3 eight' : l))),
        },
      },
    ]);
    const squashed = await merge(['s2', '--squash']);
    expect(t.git(repo, 'rev-list', '--count', `${ff.commit!}..${squashed.commit!}`)).toBe('1');
    const merged = await merge(['s3']);
    // main moved under s3: a merge commit.
    expect(t.git(repo, 'log', '-1', '--format=%P', merged.commit!).split(' ')).toHaveLength(2);

    expect(await blame('app.txt')).toEqual([
      's1/1: s1: write the header',
      's2/1: s2: rename the second line',
      's1/2: s1 three from the reply',
      'person: Pat Person',
      'person: Pat Person',
      'person: Pat Person',
      's3/1: s3: fix the tail',
      's3/1: s3: fix the tail',
    ]);
    expect(await blame('lib.txt')).toEqual([
      's2/1: s2: rename the second line',
      's2/1: s2: rename the second line',
    ]);
    // A range, and the text of the lines.
    const range = JSON.parse(await t.ok(['blame', 'app.txt:2-3', '--json'], { cwd: repo })) as BlameView;
    expect(range.lines.map((l) => [l.line, l.text, l.turn?.agent])).toEqual([
      [2, 's2 two', 'scripted'],
      [3, 's1 three from the reply', 'scripted'],
    ]);
    const human = await t.ok(['blame', 'app.txt:2-4'], { cwd: repo });
    expect(human).toMatch(/^2 {2}s2 turn 1 \(scripted\) "s2: rename the second line"\s+s2 two$/m);
    expect(human).toMatch(/^4 {2}[0-9a-f]{8} Pat Person "the base file"\s+base 4$/m);

    // The provenance is in git: a clone that fetched the notes has it, with no Baton at all.
    expect(t.git(repo, 'notes', '--ref=baton', 'list').split('\n').length).toBeGreaterThanOrEqual(4);

    // why: the turn's place in the transcript and the decision it cited.
    const why = JSON.parse(await t.ok(['why', 'app.txt:3', '--json'], { cwd: repo })) as WhyView;
    expect(why.line.turn).toMatchObject({ name: 's1', turn: 2, decisions: ['decision 12'] });
    expect(why.transcript).toMatchObject({ name: 's1', kept: true });
    expect(why.transcript!.entries.map((e) => e.text).join('\n')).toMatch(/decision 12/);
    const text = await t.ok(['why', 'app.txt:3'], { cwd: repo });
    expect(text).toMatch(/Written by session s1, turn 2 \(agent scripted\)/);
    expect(text).toMatch(/The turn answered:\n {2}s1 three from the reply/);
    expect(text).toMatch(/Decisions it cited: decision 12/);
    const nobody = await t.ok(['why', 'app.txt:5'], { cwd: repo });
    expect(nobody).toMatch(
      /No session of Baton's wrote this line: commit [0-9a-f]{12} by Pat Person <pat@example.com>/,
    );
  });

  it('names each member of a group merge and a squashed group', async () => {
    commitBase();
    await dispatch('g1', 'g1: first of the group', [
      { write: { path: 'app.txt', content: withLines({ 1: 'g1 one' }) } },
    ]);
    await dispatch('g2', 'g2: second of the group', [
      { write: { path: 'app.txt', content: withLines({ 8: 'g2 eight' }) } },
    ]);
    await merge(['g1', 'g2']);
    await dispatch('q1', 'q1: squashed first', [{ write: { path: 'q.txt', content: lines('q1 a') } }]);
    await dispatch('q2', 'q2: squashed second', [{ write: { path: 'r.txt', content: lines('q2 a') } }]);
    await merge(['q1', 'q2', '--squash']);
    const app = await blame('app.txt');
    expect(app[0]).toBe('g1/1: g1: first of the group');
    expect(app[7]).toBe('g2/1: g2: second of the group');
    expect(app.slice(1, 7).every((l) => l === 'person: Pat Person')).toBe(true);
    expect(await blame('q.txt')).toEqual(['q1/1: q1: squashed first']);
    expect(await blame('r.txt')).toEqual(['q2/1: q2: squashed second']);
  });

  it("keeps the first session's lines and names the successor for the lines it changed after a handoff", async () => {
    // The default script writes BATON_NOTES.md with the task on line 3.
    await t.ok(['dispatch', 'h1: plan the cache', '--name', 'h1', '--agent', 'scripted'], { cwd: repo });
    await t.waitForState('h1', 'ready_for_review');
    await recorded('h1', 1);
    await merge(['h1']);
    await t.ok(['handoff', 'h1', '--to', 'scripted', '--name', 'h2', 'h2: carry the plan on'], { cwd: repo });
    await t.waitForState('h2', 'ready_for_review');
    await recorded('h2', 1);
    await merge(['h2']);
    const view = JSON.parse(await t.ok(['blame', 'BATON_NOTES.md', '--json'], { cwd: repo })) as BlameView;
    const byLine = view.lines.map((l) => `${l.turn?.name ?? '-'} ${l.text}`);
    expect(byLine).toContain('h2 Task: h2: carry the plan on');
    expect(byLine).toContain('h1 # Notes');
    expect(byLine).toContain('h1 - made this note');
    const task = view.lines.find((l) => l.text.startsWith('Task:'))!;
    expect(task.turn).toMatchObject({ name: 'h2', prompt: 'h2: carry the plan on', handoffFrom: 'h1' });
  });

  it("answers a session's blame from its branch when git no longer lists its worktree (a removal under way), never with an internal error", async () => {
    commitBase();
    await dispatch('going', 'going: edit line 2', [
      { write: { path: 'app.txt', content: withLines({ 2: 'going 2' }) } },
      { run: ['git', 'commit', '-qam', 'going'] },
    ]);
    const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'going' } });
    // As `git worktree remove` leaves it for a moment: the folder still there, git's entry gone.
    const entries = join(repo, '.git', 'worktrees');
    for (const entry of readdirSync(entries))
      if (readFileSync(join(entries, entry, 'gitdir'), 'utf8').startsWith(session.worktree))
        rmSync(join(entries, entry), { recursive: true });
    const view = await t.client().call('GET /api/provenance/sessions/:ref/blame', {
      params: { ref: 'going' },
      query: { file: 'app.txt' },
    });
    // Line 2 is the session's first turn's, read from its branch; the others are the base's.
    expect(view.turns.map((turn) => turn.turn)).toEqual([1]);
    expect(view.lines).toEqual([-1, 0, -1, -1, -1, -1, -1, -1]);
  });

  it('says clearly what is wrong with a file or range it cannot blame, and changes nothing', async () => {
    commitBase();
    const missing = await t.run(['blame', 'nope.txt'], { cwd: repo });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/nope\.txt is not in this repository's history/);
    const range = await t.run(['blame', 'app.txt:5-2'], { cwd: repo });
    expect(range.stderr).toMatch(/a range is <first>-<last>/);
    const past = await t.run(['blame', 'app.txt:40'], { cwd: repo });
    expect(past.stderr).toMatch(/has only 8 lines/);
    const noLine = await t.run(['why', 'app.txt'], { cwd: repo });
    expect(noLine.stderr).toMatch(/Say which line: baton why app\.txt:<line>/);
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
  });
});
