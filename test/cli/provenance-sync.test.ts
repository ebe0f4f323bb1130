/**
 * Provenance notes travel with sync, through the real binary: two clones of one bare remote, each
 * pushing at turn ends. A landing in one writes its notes and they reach the remote; the other
 * clone's next push brings them in, merged with its own, and `baton blame` there names the session
 * that wrote the line in the first clone (decision 294).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BlameView } from '../../src/api/provenance.js';
import type { MergeResult } from '../../src/api/merge.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';

let t: TestBaton;
let a: string;
eachTest((baton, dir) => ((t = baton), (a = dir)));

type Notes = Extract<WorkspaceEvent, { type: 'sync.notes' }>;

const notesEvent = (project: string, what: 'merged' | 'pushed', after = 0) =>
  t.workspaceEvent(
    (e) => e.type === 'sync.notes' && e.data.project === project && e.data[what] && e.seq > after,
  ) as Promise<Notes>;

async function land(cwd: string, name: string, file: string): Promise<MergeResult> {
  await t.ok(
    [
      'dispatch',
      `${name}: rewrite line 2 of ${file}`,
      '--name',
      name,
      '--script',
      t.script([{ edit: { path: file, old: 'line 2', new: `line 2 by ${name}` } }]),
    ],
    { cwd },
  );
  await t.waitForState(name, 'ready_for_review');
  await t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === name);
  const result = JSON.parse(await t.ok(['merge', name, '--json'], { cwd })) as MergeResult;
  expect(result.outcome).toBe('landed');
  return result;
}

async function blameLine2(cwd: string, file: string): Promise<string> {
  const view = JSON.parse(await t.ok(['blame', `${file}:2`, '--json'], { cwd })) as BlameView;
  const line = view.lines[0]!;
  return line.turn === null ? `person: ${line.author}` : `${line.turn.name}: ${line.turn.prompt}`;
}

describe('provenance notes travel with sync', () => {
  it('a landing in one clone is named by `baton blame` in another after its next sync, and neither clone loses its own notes', async () => {
    const base = 'line 1\nline 2\nline 3\n';
    writeFileSync(join(a, 'a.txt'), base);
    writeFileSync(join(a, 'b.txt'), base);
    t.git(a, 'add', '.');
    t.git(a, 'commit', '-qm', 'two files');
    const bare = join(t.root, 'remote.git');
    t.git(t.root, 'init', '--quiet', '--bare', bare);
    t.git(a, 'remote', 'add', 'origin', bare);
    configure(t, a, { sync: { push: 'turn' } });
    t.git(a, 'push', '--quiet', 'origin', 'main');
    const b = join(t.root, 'b');
    t.git(t.root, 'clone', '--quiet', bare, b);
    const projectA = 'repo';
    const projectB = 'b';

    // B lands first: its notes reach the remote.
    await land(b, 'bee', 'b.txt');
    await notesEvent(projectB, 'pushed');
    t.git(b, 'push', '--quiet', 'origin', 'main');

    // A lands on top of B's work: its notes are merged with B's and pushed.
    t.git(a, 'pull', '--quiet', '--ff-only', 'origin', 'main');
    await land(a, 'ant', 'a.txt');
    const fromA = await notesEvent(projectA, 'pushed');
    t.git(a, 'push', '--quiet', 'origin', 'main');
    expect(await blameLine2(a, 'a.txt')).toBe('ant: ant: rewrite line 2 of a.txt');
    expect(await blameLine2(a, 'b.txt')).toBe('bee: bee: rewrite line 2 of b.txt');

    // B has A's commit now, but not yet its notes: git's author is all it can say.
    t.git(b, 'pull', '--quiet', '--ff-only', 'origin', 'main');
    expect(await blameLine2(b, 'a.txt')).toMatch(/^person: /);
    // B's next push (any session's turn end) brings A's notes in.
    await t.ok(
      [
        'dispatch',
        'later: a note',
        '--name',
        'later',
        '--script',
        t.script([{ write: { path: 'n.txt', content: 'n\n' } }]),
      ],
      { cwd: b },
    );
    await notesEvent(projectB, 'merged', fromA.seq);
    expect(await blameLine2(b, 'a.txt')).toBe('ant: ant: rewrite line 2 of a.txt');
    expect(await blameLine2(b, 'b.txt')).toBe('bee: bee: rewrite line 2 of b.txt');
    // The remote holds both clones' notes.
    expect(t.git(bare, 'notes', '--ref=baton', 'list').split('\n')).toHaveLength(2);
  }, 180_000);
});
