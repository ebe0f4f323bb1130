/**
 * Routines through the real binary: definitions from the command line and from
 * `.baton/config.json`, runs as real scripted sessions in real worktrees, a real git tag
 * firing its routine, the routine's own HTTP trigger, and a run missed while the supervisor
 * was stopped (libfaketime moves the wall clock of this test's processes only).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { RoutineDetailView, RoutineRunView, RoutineView } from '../../src/routines/index.js';
import { TestBaton } from '../support/baton.js';
import { FakeClock } from '../support/fake-clock.js';

let t: TestBaton;
let repo: string;
let clock: FakeClock | undefined;
beforeEach(() => {
  t = new TestBaton();
  repo = t.repo();
});
afterEach(() => {
  t.cleanup();
  clock?.stop();
  clock = undefined;
});

const quiet = (): string => t.script([{ say: 'NOTHING TO REPORT' }]);
const finding = (text: string): string => t.script([{ say: text }]);

const workspaceEvent = (
  match: (event: WorkspaceEvent) => boolean,
  timeoutMs?: number,
): Promise<WorkspaceEvent> => t.workspaceEvent(match, timeoutMs);

async function sessionNamed(name: string): Promise<SessionView> {
  const found = (await t.json<SessionView[]>(['ls'])).find((s) => s.name === name);
  if (found === undefined) throw new Error(`no session ${name} in baton ls`);
  return found;
}

const finished = (routine: string, runId?: number) =>
  workspaceEvent(
    (e) =>
      e.type === 'routine.finished' &&
      e.data.routine === routine &&
      (runId === undefined || e.data.runId === runId),
  ) as Promise<Extract<WorkspaceEvent, { type: 'routine.finished' }>>;

describe('baton routine', () => {
  it('adds, lists, shows, pauses, resumes and removes, with the next run in its time zone', async () => {
    const added = await t.json<RoutineDetailView>(
      [
        'routine',
        'add',
        'todo-sweep',
        '--cron',
        '0 9 * * 1',
        '--tz',
        'Europe/Berlin',
        '--agent',
        'claude',
        '--template',
        'todo-sweep',
        '--option',
        'days=45',
        '--json',
      ],
      { cwd: repo },
    );
    expect(added).toMatchObject({
      name: 'todo-sweep',
      when: 'cron 0 9 * * 1 (Europe/Berlin)',
      paused: false,
      spec: { options: { days: 45 } },
    });
    const next = new Date(added.nextRunAt!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
      }).format(next),
    ).toBe('Mon 09:00');

    const table = await t.ok(['routine', 'ls'], { cwd: repo });
    expect(table).toMatch(/NAME\s+PROJECT\s+WHEN\s+NEXT RUN\s+LAST RUN/);
    expect(table).toContain('todo-sweep');
    expect(await t.ok(['routine', 'templates'])).toMatch(/digest\s+yesterday/);

    const paused = await t.json<RoutineDetailView>(['routine', 'pause', 'todo-sweep', '--json'], {
      cwd: repo,
    });
    expect(paused).toMatchObject({ paused: true, nextRunAt: null });
    expect(await t.ok(['routine', 'show', 'todo-sweep'], { cwd: repo })).toContain('— paused');
    expect(
      (await t.json<RoutineDetailView>(['routine', 'resume', 'todo-sweep', '--json'], { cwd: repo }))
        .nextRunAt,
    ).toBe(added.nextRunAt);
    await t.ok(['routine', 'rm', 'todo-sweep'], { cwd: repo });
    expect(
      (await t.json<{ routines: RoutineView[] }>(['routine', 'ls', '--json'], { cwd: repo })).routines,
    ).toEqual([]);
  });

  it('refuses bad input with the bad part named, storing nothing', async () => {
    const bad = async (args: string[], message: string | RegExp): Promise<void> => {
      const run = await t.run(['routine', 'add', 'r', ...args], { cwd: repo });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(message);
    };
    await bad(
      ['--cron', '0 25 * * *', '--agent', 'scripted', '--prompt', 'p'],
      /Invalid cron expression "0 25 \* \* \*"/,
    );
    await bad(
      ['--cron', '0 9 * * *', '--tz', 'Atlantis/Capital', '--agent', 'scripted', '--prompt', 'p'],
      /Unknown time zone "Atlantis\/Capital"/,
    );
    await bad(
      ['--on', 'tag', '--agent', 'scripted', '--template', 'weekly-magic'],
      /Unknown routine template "weekly-magic"; the templates are todo-sweep, digest/,
    );
    await bad(
      ['--on', 'deploy', '--agent', 'scripted', '--prompt', 'p'],
      /--on.*deploy.*tag, session\.completed/s,
    );
    await bad(
      ['--on', 'tag', '--agent', 'scripted', '--prompt-file', 'nope.md'],
      /--prompt-file nope.md: no such file/,
    );
    await bad(['--agent', 'scripted', '--prompt', 'p'], /exactly one of "cron".*and "on"/);
    await bad(['--on', 'tag', '--agent', 'scripted'], /exactly one of "template", "prompt" and "promptFile"/);
    const missing = await t.run(['routine', 'show', 'ghost'], { cwd: repo });
    expect(missing.stderr).toContain('No routine "ghost"');
    expect(
      (await t.json<{ routines: RoutineView[] }>(['routine', 'ls', '--json'], { cwd: repo })).routines,
    ).toEqual([]);
  });

  it('runs as an ordinary session: findings reach the inbox and stay on the board, a quiet run is archived', async () => {
    await t.ok(
      [
        'routine',
        'add',
        'finder',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--prompt',
        'look for stale flags',
        '--script',
        finding('Two feature flags are dead: OLD_UI, BETA_SYNC.'),
      ],
      { cwd: repo },
    );
    const run = await t.json<RoutineRunView>(['routine', 'run', 'finder', '--now', '--json'], { cwd: repo });
    expect(run).toMatchObject({ trigger: 'manual', sessionName: 'finder-1' });
    // A quick agent may be done before the command returns.
    expect(['running', 'findings']).toContain(run.outcome);
    const done = await finished('finder');
    expect(done.data).toMatchObject({
      outcome: 'findings',
      summary: 'Two feature flags are dead: OLD_UI, BETA_SYNC.',
      sessionName: 'finder-1',
    });
    expect((await sessionNamed('finder-1')).state).toBe('ready_for_review');

    await t.ok(
      [
        'routine',
        'add',
        'quiet',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--prompt',
        'anything odd?',
        '--script',
        quiet(),
      ],
      { cwd: repo },
    );
    await t.ok(['routine', 'run', 'quiet', '--now'], { cwd: repo });
    // Sessions are named after the routine and the run's number.
    const quietRun = (await finished('quiet')).data;
    expect(quietRun).toMatchObject({ outcome: 'nothing', sessionName: `quiet-${quietRun.runId}` });
    await workspaceEvent((e) => e.type === 'session.removed' && e.data.name === quietRun.sessionName);
    const history = await t.ok(['routine', 'history', 'quiet'], { cwd: repo });
    expect(history).toMatch(
      /#\d+ .* manual\s+nothing\s+quiet-\d+ \$0\.0000 — the agent found nothing to report/,
    );
  });

  it('skips a run while the last one still goes, and says so in the history', async () => {
    await t.ok(
      [
        'routine',
        'add',
        'slow',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--prompt',
        'p',
        '--script',
        t.script([{ ask: 'carry on?' }]),
      ],
      { cwd: repo },
    );
    await t.ok(['routine', 'run', 'slow', '--now'], { cwd: repo });
    await t.waitForState('slow-1', 'needs_input');
    const second = await t.json<RoutineRunView>(['routine', 'run', 'slow', '--now', '--json'], { cwd: repo });
    expect(second).toMatchObject({
      outcome: 'skipped',
      cause: 'the previous run (session slow-1) is still going',
    });
  });

  it('fires on a new git tag with the release-notes check, the notes and log in the prompt', async () => {
    writeFileSync(join(repo, 'CHANGELOG.md'), '# 1.0\n- first\n');
    t.git(repo, 'add', '.');
    t.git(repo, 'commit', '-qm', 'release 1.0');
    t.git(repo, 'tag', 'v1.0');
    await t.ok(
      [
        'routine',
        'add',
        'release-check',
        '--on',
        'tag',
        '--agent',
        'scripted',
        '--template',
        'release-notes-check',
        '--script',
        finding('The notes miss --json.'),
      ],
      { cwd: repo },
    );
    writeFileSync(join(repo, 'CHANGELOG.md'), '# 1.1\n- faster\n');
    t.git(repo, 'commit', '-qam', 'add --json and notes');
    t.git(repo, 'tag', 'v1.1');
    const fired = await workspaceEvent(
      (e) => e.type === 'routine.fired' && e.data.routine === 'release-check',
    );
    expect(fired.data).toMatchObject({
      trigger: 'tag:v1.1',
      sessionName: expect.stringMatching(/^release-check-\d+$/),
    });
    const session = await sessionNamed((fired.data as { sessionName: string }).sessionName);
    expect(session.prompt).toContain('Check the release notes of v1.1 against what changed since v1.0');
    expect(session.prompt).toContain('add --json and notes');
  });

  it('fires from a local HTTP call with its own token, and refuses the workspace token', async () => {
    const routine = await t.json<RoutineDetailView>(
      [
        'routine',
        'add',
        'hook',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--prompt',
        'deployed',
        '--script',
        finding('Deploy 2.0 looks fine.'),
        '--json',
      ],
      { cwd: repo },
    );
    const port = (await t.json<{ port: number }>(['daemon', 'status', '--json'])).port;
    const call = (token: string) =>
      fetch(`http://127.0.0.1:${port}/api/hooks/routines/${routine.id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ detail: { version: '2.0' } }),
      });
    const workspaceToken = readFileSync(join(t.home, 'token'), 'utf8').trim();
    expect((await call(workspaceToken)).status).toBe(403);
    expect((await call('nonsense')).status).toBe(403);
    const ok = await call(routine.token);
    expect(ok.status).toBe(201);
    const hookRun = (await ok.clone().json()) as RoutineRunView;
    expect(hookRun.trigger).toBe('http');
    const session = await sessionNamed(`hook-${hookRun.id}`);
    expect(session.prompt).toContain('version 2.0');
  });

  it('reads routines from .baton/config.json and names a bad key', async () => {
    mkdirSync(join(repo, '.baton'));
    writeFileSync(
      join(repo, '.baton', 'config.json'),
      JSON.stringify({
        routines: { digest: { cron: '0 8 * * *', agent: 'codex', template: 'digest', when: 'daily' } },
      }),
    );
    const run = await t.run(['routine', 'ls'], { cwd: repo });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/routines\.digest.*when/);
    writeFileSync(
      join(repo, '.baton', 'config.json'),
      JSON.stringify({ routines: { digest: { cron: '0 8 * * *', agent: 'codex', template: 'digest' } } }),
    );
    const listed = await t.json<{ routines: RoutineView[] }>(['routine', 'ls', '--json'], { cwd: repo });
    expect(listed.routines.map((r) => [r.name, r.source, r.when])).toEqual([
      ['digest', 'config', 'cron 0 8 * * *'],
    ]);
    const rm = await t.run(['routine', 'rm', 'digest'], { cwd: repo });
    expect(rm.stderr).toContain('defined in .baton/config.json');
  });
});

describe('the TODO sweep with the real tasks domain', () => {
  it('files exactly the TODOs older than the cutoff as tasks on the board, and none twice', async () => {
    const old = '2026-06-01T12:00:00Z';
    writeFileSync(
      join(repo, 'watcher.ts'),
      'export const a = 1; // TODO: drop the legacy poller\n// FIXME: handle EOF\n',
    );
    execFileSync('git', ['add', '.'], { cwd: repo, env: t.env });
    execFileSync('git', ['commit', '-qm', 'old work'], {
      cwd: repo,
      env: { ...t.env, GIT_AUTHOR_DATE: old, GIT_COMMITTER_DATE: old },
    });
    writeFileSync(join(repo, 'fresh.ts'), '// TODO: a thought from today\n');
    t.git(repo, 'add', '.');
    t.git(repo, 'commit', '-qm', 'new work');
    await t.ok(
      [
        'routine',
        'add',
        'sweep',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--template',
        'todo-sweep',
        '--option',
        'days=30',
        '--script',
        finding('Both still apply.'),
      ],
      { cwd: repo },
    );
    await t.ok(['routine', 'run', 'sweep', '--now'], { cwd: repo });
    await finished('sweep');
    const titles = async (): Promise<string[]> =>
      (
        await t.json<{ columns: { tasks: { title: string; scope: string[] }[] }[] }>(['task', 'ls'], {
          cwd: repo,
        })
      ).columns
        .flatMap((c) => c.tasks.map((x) => `${x.title} [${x.scope.join(',')}]`))
        .sort();
    expect(await titles()).toEqual([
      '// FIXME: handle EOF (watcher.ts:2) [watcher.ts]',
      'export const a = 1; // TODO: drop the legacy poller (watcher.ts:1) [watcher.ts]',
    ]);
    const second = await t.json<RoutineRunView>(['routine', 'run', 'sweep', '--now'], { cwd: repo });
    expect(second).toMatchObject({ outcome: 'nothing', sessionId: null });
    expect(await titles()).toHaveLength(2);
  });
});

describe('a run missed while the supervisor was stopped', () => {
  it('fires once when it is back, with the number missed in the record', async () => {
    clock = await FakeClock.start(t.root);
    Object.assign(t.env, clock.env());
    await t.ok(
      [
        'routine',
        'add',
        'hourly',
        '--cron',
        '0 * * * *',
        '--agent',
        'scripted',
        '--prompt',
        'hourly look',
        '--script',
        quiet(),
      ],
      { cwd: repo },
    );
    await t.ok(['daemon', 'stop']);
    clock.set(3 * 3600 + 120);
    await t.ok(['daemon', 'start']);
    const fired = await workspaceEvent((e) => e.type === 'routine.fired' && e.data.routine === 'hourly');
    expect(fired.data).toMatchObject({ trigger: 'missed' });
    await finished('hourly');
    const runs = (
      await t.json<{ runs: RoutineRunView[] }>(['routine', 'history', 'hourly', '--json'], { cwd: repo })
    ).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]!.cause).toMatch(
      /^[34] run\(s\) due since .* were missed while Baton was stopped or the machine slept; fired once on return/,
    );
  });
});
