/**
 * A landing whose supervisor was killed after the base moved and before the landed commits got
 * their provenance notes (decision 293): the next supervisor finishes the landing and notes it, so
 * `baton blame` names the session's turn, not the commit's author. The kill is placed at the merge's
 * `merge.advanced` step boundary through the crash file, not by a timer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BlameView } from '../../src/api/provenance.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { watchExit } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('a landing interrupted before its notes', () => {
  it('gets its provenance notes when the next supervisor reconciles it', async () => {
    const crashFile = join(t.root, 'crash-at');
    t.env.BATON_TEST_CRASH_FILE = crashFile;
    writeFileSync(join(repo, 'app.txt'), 'one\ntwo\nthree\n');
    t.git(repo, 'add', 'app.txt');
    t.git(repo, '-c', 'user.name=Pat Person', '-c', 'user.email=pat@example.com', 'commit', '-qm', 'base');
    const script = t.script([{ write: { path: 'app.txt', content: 'one\nTWO by the agent\nthree\n' } }]);
    await t.ok(['dispatch', 'fix the second line', '--name', 'w1', '--script', script], { cwd: repo });
    await t.waitForState('w1', 'ready_for_review');
    await t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === 'w1');

    const pid = t.supervisorPid();
    writeFileSync(crashFile, `merge.advanced ${pid}`);
    const merging = t.run(['merge', 'w1', '--json'], { cwd: repo });
    await watchExit(pid);
    await merging;
    // The base moved (the kill came after): the landing stands. The next supervisor (the CLI's
    // retry may already have started it; else any command does) reconciles the journaled merge.
    expect(t.git(repo, 'show', 'HEAD:app.txt')).toContain('TWO by the agent');
    await t.ok(['ls'], { cwd: repo });
    await t.workspaceEvent(
      (e) => e.type === 'provenance.noted' && e.data.sessions.some((s) => s.name === 'w1'),
    );
    const view = JSON.parse(await t.ok(['blame', 'app.txt', '--json'], { cwd: repo })) as BlameView;
    expect(
      view.lines.map((l) => (l.turn === null ? `person: ${l.author}` : `${l.turn.name}/${l.turn.turn}`)),
    ).toEqual(['person: Pat Person', 'w1/1', 'person: Pat Person']);
    expect(view.lines[1]!.turn!.prompt).toBe('fix the second line');
  });
});
