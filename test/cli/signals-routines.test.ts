/**
 * Routines' signals through the real binary with the scripted agent (decision 156): a run ends
 * when its agent's last word is "NOTHING TO REPORT" even when that comes in a later turn; a run's
 * findings are dismissed or filed as a task from the CLI and the API; a config alert is resolved
 * once the config is valid again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AlertList } from '../../src/api/watchdog.js';
import type { RoutineDetailView } from '../../src/routines/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const finished = (routine: string) =>
  t.workspaceEvent((e) => e.type === 'routine.finished' && e.data.routine === routine) as Promise<
    Extract<WorkspaceEvent, { type: 'routine.finished' }>
  >;

async function addRoutine(
  name: string,
  steps: unknown[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  await t.ok(
    [
      'routine',
      'add',
      name,
      '--on',
      'http',
      '--agent',
      'scripted',
      '--prompt',
      'anything odd?',
      '--script',
      t.script(steps, extra),
    ],
    { cwd: repo },
  );
}

describe('a routine run', () => {
  it('ends as "nothing" when the agent says NOTHING TO REPORT after a question was answered', async () => {
    await addRoutine('asker', [{ ask: 'Should I look at the docs too?' }, { say: 'NOTHING TO REPORT' }]);
    await t.ok(['routine', 'run', 'asker', '--now'], { cwd: repo });
    await t.waitForState('asker-1', 'needs_input');
    const done = finished('asker');
    await t.ok(['reply', 'asker-1', 'yes, the docs too']);
    const ended = (await done).data;
    expect(ended, ended.summary).toMatchObject({ outcome: 'nothing', sessionName: 'asker-1' });
    const shown = await t.json<RoutineDetailView>(['routine', 'show', 'asker', '--json'], { cwd: repo });
    expect(shown.runs[0]?.outcome).toBe('nothing');
  });

  it('ends when a question is answered and the turn finishes at once (no longer left running)', async () => {
    await addRoutine('quick', [{ ask: 'Should I look at the docs too?' }]);
    await t.ok(['routine', 'run', 'quick', '--now'], { cwd: repo });
    await t.waitForState('quick-1', 'needs_input');
    const done = finished('quick');
    await t.ok(['reply', 'quick-1', 'yes']);
    // Its last word is the question: a finding, and the run is over.
    expect((await done).data).toMatchObject({
      outcome: 'findings',
      summary: 'Should I look at the docs too?',
    });
  });
});

describe('routine findings', () => {
  it('are dismissed, or filed as a backlog task, from the CLI; the run says which and its session is archived', async () => {
    await addRoutine('finder', [{ say: 'Two feature flags are dead: OLD_UI, BETA_SYNC.' }]);
    await t.ok(['routine', 'run', 'finder', '--now'], { cwd: repo });
    expect((await finished('finder')).data.outcome).toBe('findings');
    const filed = await t.ok(['routine', 'file', 'finder'], { cwd: repo });
    expect(filed).toMatch(
      /Filed the findings of finder run #1 as task (\d+) \(finder: Two feature flags are dead: OLD_UI, BETA_SYNC\.\); finder-1 is archived\./,
    );
    const board = await t.ok(['task', 'ls'], { cwd: repo });
    expect(board).toContain('finder: Two feature flags are dead');
    await t.workspaceEvent((e) => e.type === 'session.removed' && e.data.name === 'finder-1');
    const history = await t.ok(['routine', 'history', 'finder'], { cwd: repo });
    expect(history).toContain('findings');
    // Dealt with once: a second triage says so and changes nothing.
    const again = await t.run(['routine', 'dismiss', 'finder'], { cwd: repo });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already dealt with/);

    await t.ok(['routine', 'run', 'finder', '--now'], { cwd: repo });
    // The run's end, not its session's state: the findings are the run's once it is recorded as ended.
    await t.workspaceEvent(
      (e) => e.type === 'routine.finished' && e.data.routine === 'finder' && e.data.runId === 2,
    );
    const dismissed = await t.client(repo).call('POST /api/routines/:name/findings', {
      params: { name: 'finder' },
      body: { action: 'dismiss' },
      query: { cwd: repo },
    } as never);
    expect(dismissed).toMatchObject({ run: { id: 2, outcome: 'findings' }, task: null });
    expect((dismissed as { run: { cause: string } }).run.cause).toMatch(/\ndismissed /);
    const live = await t.json<{ name: string }[]>(['ls']);
    expect(live.map((s) => s.name)).not.toContain('finder-2');
    // A run without findings is refused with the reason.
    const bad = await t.run(['routine', 'dismiss', 'finder', '--run', '99'], { cwd: repo });
    expect(bad.stderr).toMatch(/finder has no run #99/);
  });
});

describe('a config alert', () => {
  it('is resolved once the repository’s config is valid again', async () => {
    mkdirSync(join(repo, '.baton'), { recursive: true });
    const config = join(repo, '.baton', 'config.json');
    writeFileSync(config, JSON.stringify({ watchdog: { loop: { repeats: 3 } } }));
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'cfg',
        '--script',
        t.script([{ ask: 'ready?' }, { ask: 'and now?' }, { say: 'done' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('cfg', 'needs_input');
    writeFileSync(config, JSON.stringify({ watchdog: { noChange: { turnz: 2 } } }));
    const raised = t.workspaceEvent((e) => e.type === 'watchdog.alert_raised' && e.data.rule === 'config');
    await t.ok(['reply', 'cfg', 'yes'], { cwd: repo });
    const alert = await raised;
    if (alert.type !== 'watchdog.alert_raised') throw new Error('unexpected event');
    expect((await t.json<AlertList>(['alerts'], { cwd: repo })).alerts.map((a) => a.id)).toContain(
      alert.data.alertId,
    );
    // The CLI says when, in local time and how long ago, not as a UTC ISO string.
    expect(await t.ok(['alerts'], { cwd: repo })).toMatch(
      /\d{4}-\d\d-\d\d \d\d:\d\d \(\d+s ago\) {2}workspace {2}config:/,
    );
    await t.waitForState('cfg', 'needs_input');
    writeFileSync(config, JSON.stringify({ watchdog: { noChange: { turns: 2 } } }));
    const resolved = t.workspaceEvent(
      (e) => e.type === 'watchdog.alert_acknowledged' && e.data.alertId === alert.data.alertId,
    );
    await t.ok(['reply', 'cfg', 'go on'], { cwd: repo });
    await resolved;
    expect((await t.json<AlertList>(['alerts'], { cwd: repo })).alerts).toEqual([]);
  });
});
