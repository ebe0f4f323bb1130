/**
 * A turn's record under way when the supervisor is stopped: the stop waits for it (the test holds
 * the record at its `provenance.recording` point and lets it go only once the stop marks that it
 * waits), so the turn's lines keep their turn. Killed there instead (the crash file), the next
 * supervisor takes the record at its start.
 *
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
import { alive, watchExit } from '../support/process.js';
import { until } from '../support/wait.js';

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

  it('a stop waits for the record of a turn that just ended, so the turn keeps its lines', async () => {
    const points = t.points();
    points.hold('provenance.recording');
    const script = t.script([{ write: { path: 'notes.txt', content: 'written by the agent\n' } }]);
    await t.ok(['dispatch', 'write the notes', '--name', 'w2', '--script', script], { cwd: repo });
    await t.waitForState('w2', 'ready_for_review');
    await until(() => points.reached('provenance.recording'), 'the record to start');

    const pid = t.supervisorPid();
    const stopping = t.run(['daemon', 'stop']);
    // Before: the supervisor ended here, the record cut short. Now it says it waits, and does.
    await until(
      () => points.reached('shutdown.settling') || !alive(pid),
      'the stop to wait for the record, or the supervisor to end',
    );
    expect(alive(pid)).toBe(true);
    points.release('provenance.recording');
    await watchExit(pid);
    expect((await stopping).stdout).toContain('Supervisor stopped');

    await t.ok(['ls'], { cwd: repo });
    const recorded = await t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === 'w2');
    expect((recorded.data as { commit: string | null }).commit).not.toBeNull();
    // The session's own blame reads its turn chain: the line is turn 1's.
    const view = await t.client(repo).call('GET /api/provenance/sessions/:ref/blame', {
      params: { ref: 'w2' },
      query: { file: 'notes.txt' },
    });
    expect(view.lines).toEqual([0]);
    expect(view.turns.map((turn) => [turn.turn, turn.prompt])).toEqual([[1, 'write the notes']]);
  });

  it('a stop whose wait runs out while a record holds the supervisor exits 124, not 0', async () => {
    const points = t.points();
    points.hold('provenance.recording');
    const script = t.script([{ write: { path: 'log.txt', content: 'written by the agent\n' } }]);
    await t.ok(['dispatch', 'write the log', '--name', 'w4', '--script', script], { cwd: repo });
    await t.waitForState('w4', 'ready_for_review');
    await until(() => points.reached('provenance.recording'), 'the record to start');

    // The record is held, so the supervisor cannot have ended when a wait of 0 s looks: before,
    // the command said "still stopping" and exited 0, and `daemon stop && …` went on.
    const pid = t.supervisorPid();
    const stopping = await t.run(['daemon', 'stop', '--timeout', '0']);
    expect(stopping.stdout).toContain('still stopping');
    expect(stopping.code).toBe(124);
    expect(alive(pid)).toBe(true);

    points.release('provenance.recording');
    await watchExit(pid);
    const again = await t.run(['daemon', 'stop']);
    expect([again.code, again.stdout]).toEqual([0, 'Supervisor: not running.\n']);
    const bad = await t.run(['daemon', 'stop', '--timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout must be a number of seconds');
  });

  it('a supervisor killed while it records a turn records that turn at its next start', async () => {
    const crashFile = join(t.root, 'crash-at');
    t.env.BATON_TEST_CRASH_FILE = crashFile;
    await t.ok(['daemon', 'start']);
    const pid = t.supervisorPid();
    writeFileSync(crashFile, `provenance.recording ${pid}`);
    const script = t.script([{ write: { path: 'plan.txt', content: 'planned by the agent\n' } }]);
    // The dispatch is answered before the turn ends, and the supervisor dies as its record starts.
    await t.run(['dispatch', 'write the plan', '--name', 'w3', '--script', script], { cwd: repo });
    await watchExit(pid);

    // Any command starts the next supervisor; it takes the record the killed one left under way.
    await t.ok(['ls'], { cwd: repo });
    await t.waitForState('w3', 'ready_for_review');
    const recorded = await t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === 'w3');
    expect((recorded.data as { turn: number; commit: string | null }).turn).toBe(1);
    expect((recorded.data as { commit: string | null }).commit).not.toBeNull();
    const view = await t.client(repo).call('GET /api/provenance/sessions/:ref/blame', {
      params: { ref: 'w3' },
      query: { file: 'plan.txt' },
    });
    expect(view.lines).toEqual([0]);
    expect(view.turns.map((turn) => [turn.turn, turn.prompt])).toEqual([[1, 'write the plan']]);
  });
});
