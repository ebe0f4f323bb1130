import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SLEEP_MS } from './timer.js';
import { RoutineFixture, TestClock } from './testing.js';
import { until } from '../../test/support/wait.js';

let fixture: RoutineFixture | undefined;
afterEach(() => {
  fixture?.cleanup();
  fixture = undefined;
});

function make(now: string, withTasks = true): RoutineFixture {
  fixture = new RoutineFixture(new TestClock(new Date(now)), withTasks);
  return fixture;
}

const daily = { cron: '0 9 * * *', tz: 'UTC', agent: 'scripted' as const, prompt: 'look around' };

describe('scheduled routines', () => {
  it('fire once at their time, with the next run stored first, and sleep at most a minute', async () => {
    const f = make('2026-11-23T08:59:00Z');
    await f.service.start();
    const added = await f.service.add({ name: 'daily', cwd: f.repo, spec: daily });
    expect(added.nextRunAt).toBe('2026-11-23T09:00:00.000Z');
    await f.service.tick();
    expect(f.dispatched).toHaveLength(0);
    expect(Math.max(...f.clock.timers.map((t) => t.ms))).toBeLessThanOrEqual(MAX_SLEEP_MS);

    f.clock.set('2026-11-23T09:00:05Z');
    await f.service.tick();
    await f.service.tick();
    expect(f.dispatched).toHaveLength(1);
    expect(f.dispatched[0]).toMatchObject({
      prompt: 'look around',
      cwd: f.repo,
      agent: 'scripted',
      name: 'daily-1',
    });
    // The workspace brief goes in Baton's instructions, not the prompt.
    expect(f.dispatched[0]!.instructions).toContain('You are running the routine "daily"');
    const shown = await f.service.show('daily', f.repo);
    expect(shown.nextRunAt).toBe('2026-11-24T09:00:00.000Z');
    expect(shown.runs).toMatchObject([
      { trigger: 'schedule', outcome: 'running', dueAt: '2026-11-23T09:00:00.000Z', sessionName: 'daily-1' },
    ]);
    expect(f.of('routine.fired')).toHaveLength(1);
  });

  it('follow their time zone', async () => {
    const f = make('2026-11-23T00:00:00Z');
    const routine = await f.service.add({
      name: 'berlin',
      cwd: f.repo,
      spec: { ...daily, cron: '0 9 * * 1', tz: 'Europe/Berlin' },
    });
    // Monday 23 November 2026, 09:00 in Berlin (UTC+1 in winter).
    expect(routine.nextRunAt).toBe('2026-11-23T08:00:00.000Z');
  });

  it('fire a run missed while the machine slept once on return, saying how many were missed', async () => {
    const f = make('2026-11-23T08:59:00Z');
    await f.service.start();
    await f.service.add({ name: 'daily', cwd: f.repo, spec: daily });
    f.clock.set('2026-11-26T10:00:00Z');
    await f.service.tick();
    await f.service.tick();
    expect(f.dispatched).toHaveLength(1);
    const [run] = (await f.service.show('daily', f.repo)).runs;
    expect(run).toMatchObject({ trigger: 'missed', outcome: 'running', dueAt: '2026-11-26T09:00:00.000Z' });
    expect(run!.cause).toContain('4 run(s) due since 2026-11-23T09:00:00.000Z were missed');
    expect((await f.service.show('daily', f.repo)).nextRunAt).toBe('2026-11-27T09:00:00.000Z');
  });

  it('only record a missed run when catch-up is off', async () => {
    const f = make('2026-11-23T08:59:00Z');
    await f.service.add({ name: 'daily', cwd: f.repo, spec: { ...daily, catchUp: false } });
    f.clock.set('2026-11-23T12:00:00Z');
    await f.service.tick();
    expect(f.dispatched).toHaveLength(0);
    expect((await f.service.history('daily', f.repo, 10))[0]).toMatchObject({
      outcome: 'missed',
      trigger: 'missed',
    });
    expect(f.of('routine.skipped')[0]?.data.cause).toContain('catch-up is off');
  });

  it('skip a fire while the last run still goes, and record it', async () => {
    const f = make('2026-11-23T08:59:00Z');
    await f.service.start();
    await f.service.add({ name: 'daily', cwd: f.repo, spec: daily });
    await f.service.runNow('daily', f.repo);
    const second = await f.service.runNow('daily', f.repo);
    expect(second).toMatchObject({
      outcome: 'skipped',
      cause: 'the previous run (session daily-1) is still going',
    });
    expect(f.dispatched).toHaveLength(1);
    // Once it is done, the next fire runs.
    f.settle(f.sessionNamed('daily-1'), 'ready_for_review', 'Found two stale flags.');
    await waitFor(() => f.of('routine.finished').length === 1);
    expect((await f.service.runNow('daily', f.repo)).outcome).toBe('running');
  });

  it('do not start a run while a budget is spent: the run is recorded as skipped with the reason', async () => {
    const f = make('2026-11-23T08:59:00Z');
    await f.service.add({ name: 'daily', cwd: f.repo, spec: daily });
    f.budgetReason = 'the day budget is spent ($40.00 of $40.00); raise it with baton budget set';
    f.clock.set('2026-11-23T09:00:05Z');
    await f.service.tick();
    expect(f.dispatched).toHaveLength(0);
    expect((await f.service.history('daily', f.repo, 5))[0]).toMatchObject({
      outcome: 'skipped',
      cause: 'not run: the day budget is spent ($40.00 of $40.00); raise it with baton budget set',
    });
    f.budgetReason = undefined;
    expect((await f.service.runNow('daily', f.repo)).outcome).toBe('running');
  });

  // Decision 178: a routine stored from a config that is gone or changed does not run as stored.
  it("of a repository's config run only as the file holds them now: gone or changed, nothing is dispatched", async () => {
    const f = make('2026-11-23T08:59:00Z');
    mkdirSync(join(f.repo, '.baton'));
    const config = join(f.repo, '.baton', 'config.json');
    writeFileSync(config, JSON.stringify({ routines: { nightly: daily } }));
    await f.service.start();
    await f.service.tick();
    expect((await f.service.list(f.repo)).map((r) => [r.name, r.source])).toEqual([['nightly', 'config']]);
    // Changed under it (a branch with another config checked out): the stored one does not run.
    writeFileSync(config, JSON.stringify({ routines: { nightly: { ...daily, prompt: 'something else' } } }));
    const changed = await f.service.runNow('nightly', f.repo);
    expect(changed.outcome).toBe('failed');
    expect(changed.cause).toContain('no longer holds it as stored; nothing ran');
    expect(f.dispatched).toHaveLength(0);
    // As stored again: it runs.
    writeFileSync(config, JSON.stringify({ routines: { nightly: daily } }));
    expect((await f.service.runNow('nightly', f.repo)).outcome).toBe('running');
    f.settle(f.sessionNamed('nightly-2'), 'completed', 'all good', 1);
    // The file gone (a config without commands needs no trust): nothing runs.
    rmSync(config);
    const gone = await f.service.runNow('nightly', f.repo).catch((error: Error) => error);
    expect('outcome' in gone ? gone.outcome : gone.message).toBe('failed');
    expect(f.dispatched.map((d) => d.name)).toEqual(['nightly-2']);
  });

  it("of a repository's config run on one machine of a shared workspace: a fire another machine claimed is recorded as skipped, naming it", async () => {
    const f = make('2026-11-23T08:59:00Z');
    mkdirSync(join(f.repo, '.baton'));
    writeFileSync(join(f.repo, '.baton', 'config.json'), JSON.stringify({ routines: { nightly: daily } }));
    await f.service.start();
    await f.service.add({ name: 'mine', cwd: f.repo, spec: daily });
    f.holder = 'beta';
    f.clock.set('2026-11-23T09:00:05Z');
    await f.service.tick();
    // The routine added here by hand is this machine's alone: it is not claimed, and runs.
    expect(f.dispatched.map((d) => d.name)).toEqual(['mine-1']);
    expect(f.claims).toEqual([{ root: f.repo, routine: 'nightly', key: 'due:2026-11-23T09:00:00.000Z' }]);
    expect((await f.service.history('nightly', f.repo, 5))[0]).toMatchObject({
      outcome: 'skipped',
      cause: 'run on machine beta, which reads the same routine from its checkout of the repository',
    });
    // Asked for here, it runs here, unclaimed; the next fire this machine claims first is its own.
    expect((await f.service.runNow('nightly', f.repo)).outcome).toBe('running');
    expect(f.claims).toHaveLength(1);
    f.settle(f.sessionNamed('nightly-3'), 'completed', 'all good', 1);
    f.holder = undefined;
    f.clock.set('2026-11-24T09:00:05Z');
    await f.service.tick();
    expect(f.claims.at(-1)).toEqual({
      root: f.repo,
      routine: 'nightly',
      key: 'due:2026-11-24T09:00:00.000Z',
    });
    expect(f.dispatched.filter((d) => d.name?.startsWith('nightly-'))).toHaveLength(2);
  });

  it('do not fire when paused, and resume from now without a flood of missed runs', async () => {
    const f = make('2026-11-23T08:59:00Z');
    await f.service.add({ name: 'daily', cwd: f.repo, spec: daily });
    await f.service.setPaused('daily', f.repo, true);
    f.clock.set('2026-11-25T10:00:00Z');
    await f.service.tick();
    expect(f.dispatched).toHaveLength(0);
    const resumed = await f.service.setPaused('daily', f.repo, false);
    expect(resumed.nextRunAt).toBe('2026-11-26T09:00:00.000Z');
    await f.service.tick();
    expect(f.dispatched).toHaveLength(0);
  });
});

describe("a run's end", () => {
  it('brings findings to the inbox with the cost, and archives a run with nothing to report', async () => {
    const f = make('2026-11-23T09:00:00Z');
    await f.service.start();
    await f.service.add({
      name: 'check',
      cwd: f.repo,
      spec: { on: 'http', agent: 'scripted', prompt: 'check' },
    });
    await f.service.runNow('check', f.repo);
    f.settle(f.sessionNamed('check-1'), 'ready_for_review', 'The release notes miss the new --json flag.');
    await waitFor(() => f.of('routine.finished').length === 1);
    expect(f.of('routine.finished')[0]!.data).toMatchObject({
      outcome: 'findings',
      summary: 'The release notes miss the new --json flag.',
      sessionName: 'check-1',
    });

    await f.service.runNow('check', f.repo);
    f.settle(f.sessionNamed('check-2'), 'ready_for_review', 'NOTHING TO REPORT');
    await waitFor(() => f.of('routine.finished').length === 2);
    expect(f.of('routine.finished')[1]!.data).toMatchObject({ outcome: 'nothing', sessionName: 'check-2' });
    expect(f.removed).toEqual([f.store.get(f.of('routine.finished')[1]!.data.sessionId!)!.id]);
  });

  it('keeps a quiet run that changed files, and reports a failed one with its cause', async () => {
    const f = make('2026-11-23T09:00:00Z');
    await f.service.start();
    await f.service.add({ name: 'r', cwd: f.repo, spec: { on: 'http', agent: 'scripted', prompt: 'p' } });
    await f.service.runNow('r', f.repo);
    f.settle(f.sessionNamed('r-1'), 'ready_for_review', 'NOTHING TO REPORT', 2);
    await f.service.runNow('r', f.repo).catch(() => undefined);
    await waitFor(() => f.of('routine.finished').length >= 1);
    expect(f.of('routine.finished')[0]!.data.outcome).toBe('findings');
    expect(f.removed).toEqual([]);
    await waitFor(() => f.store.listLive().some((s) => s.name === 'r-2'));
    f.settle(f.sessionNamed('r-2'), 'failed');
    await waitFor(() => f.of('routine.finished').length === 2);
    expect(f.of('routine.finished')[1]!.data).toMatchObject({
      outcome: 'failed',
      summary: 'its session failed',
    });
  });

  it('records a run that could not start, with the cause', async () => {
    const f = make('2026-11-23T09:00:00Z');
    mkdirSync(join(f.repo, 'prompts'));
    writeFileSync(join(f.repo, 'prompts', 'digest.md'), 'digest please');
    await f.service.start();
    await f.service.add({
      name: 'p',
      cwd: f.repo,
      spec: { on: 'http', agent: 'scripted', promptFile: 'prompts/digest.md' },
    });
    await f.service.runNow('p', f.repo);
    expect(f.dispatched[0]!.prompt).toBe('digest please');
    f.settle(f.sessionNamed('p-1'), 'completed', 'ok');
    await waitFor(() => f.of('routine.finished').length === 1);
    (await import('node:fs')).rmSync(join(f.repo, 'prompts', 'digest.md'));
    const run = await f.service.runNow('p', f.repo);
    expect(run).toMatchObject({
      outcome: 'failed',
      cause: 'could not start: its prompt file prompts/digest.md does not exist',
    });
  });
});

describe('triggers', () => {
  it('fire on a new tag, once per tag, with the tag in the prompt', async () => {
    const f = make('2026-11-23T09:00:00Z');
    f.git('tag', 'v0.9');
    await f.service.start();
    await f.service.add({
      name: 'release',
      cwd: f.repo,
      spec: { on: 'tag', agent: 'scripted', prompt: 'check the notes' },
    });
    f.git('tag', 'v1.0');
    await waitFor(() => f.dispatched.length === 1);
    expect(f.dispatched[0]!.prompt).toContain('tag v1.0');
    expect((await f.service.history('release', f.repo, 5))[0]!.trigger).toBe('tag:v1.0');
    await f.service.tick();
    expect(f.dispatched).toHaveLength(1);
  });

  it("fire on a completed session, but never on a routine's own run", async () => {
    const f = make('2026-11-23T09:00:00Z');
    await f.service.start();
    await f.service.add({
      name: 'after',
      cwd: f.repo,
      spec: { on: 'session.completed', agent: 'scripted', prompt: 'follow up' },
    });
    const project = f.store.ensureProject(f.repo);
    f.store.insert(
      {
        id: 'user-1',
        project_id: project.id,
        name: 'feature',
        agent: 'scripted',
        prompt: 'p',
        model: null,
        permission_mode: 'default',
        options_json: '{}',
        branch: 'baton/feature',
        base_ref: 'main',
        base_commit: f.git('rev-parse', 'HEAD'),
        worktree: f.repo,
      },
      'working',
    );
    f.settle(f.store.get('user-1')!, 'completed');
    await waitFor(() => f.dispatched.length === 1);
    expect(f.dispatched[0]!.prompt).toContain('session feature');
    f.settle(f.sessionNamed('after-1'), 'completed', 'done');
    await waitFor(() => f.of('routine.finished').length === 1);
    expect(f.dispatched).toHaveLength(1);
  });

  it('fire from a local HTTP call only with the routine’s own token', async () => {
    const f = make('2026-11-23T09:00:00Z');
    const routine = await f.service.add({
      name: 'hook',
      cwd: f.repo,
      spec: { on: 'http', agent: 'scripted', prompt: 'p' },
    });
    await expect(f.service.hook(routine.id, 'wrong', {})).rejects.toThrow('wrong routine token');
    await expect(f.service.hook(routine.id, undefined, {})).rejects.toThrow('wrong routine token');
    expect((await f.service.hook(routine.id, routine.token, { build: '42' })).outcome).toBe('running');
    expect(f.dispatched[0]!.prompt).toContain('build 42');
  });
});

describe('bad input', () => {
  it('is refused with its name, and nothing is stored', async () => {
    const f = make('2026-11-23T09:00:00Z');
    const add = (spec: Record<string, unknown>, name = 'r') =>
      f.service.add({ name, cwd: f.repo, spec: spec as never });
    await expect(add({ cron: '61 * * * *', agent: 'scripted', prompt: 'p' })).rejects.toThrow(
      'Invalid cron expression "61 * * * *"',
    );
    await expect(
      add({ cron: '0 9 * * *', tz: 'Mars/Olympus', agent: 'scripted', prompt: 'p' }),
    ).rejects.toThrow('Unknown time zone "Mars/Olympus"');
    await expect(add({ cron: '0 9 * * *', agent: 'scripted', template: 'nope' })).rejects.toThrow(
      'Unknown routine template "nope"',
    );
    await expect(add({ on: 'tag', agent: 'scripted', promptFile: 'missing.md' })).rejects.toThrow(
      'The prompt file missing.md does not exist',
    );
    await expect(add({ on: 'tag', cron: '0 9 * * *', agent: 'scripted', prompt: 'p' })).rejects.toThrow(
      'give exactly one of "cron"',
    );
    await expect(add({ on: 'deploy', agent: 'scripted', prompt: 'p' })).rejects.toThrow('on');
    await expect(add({ on: 'tag', agent: 'scripted', prompt: 'p' }, 'bad name')).rejects.toThrow(
      'Invalid session name "bad name"',
    );
    expect(await f.service.list(f.repo)).toEqual([]);
    await add({ on: 'tag', agent: 'scripted', prompt: 'p' });
    await expect(add({ on: 'tag', agent: 'scripted', prompt: 'p' })).rejects.toThrow('already exists');
    await expect(f.service.show('nope', f.repo)).rejects.toThrow('No routine "nope"; routines: r');
  });

  it('in .baton/config.json names the bad key', async () => {
    const f = make('2026-11-23T09:00:00Z');
    mkdirSync(join(f.repo, '.baton'));
    writeFileSync(
      join(f.repo, '.baton', 'config.json'),
      JSON.stringify({
        routines: { digest: { cron: '0 8 * * *', agent: 'codex', template: 'digest', colour: 'red' } },
      }),
    );
    await expect(f.service.list(f.repo)).rejects.toThrow(/routines\.digest.*colour/);
    writeFileSync(
      join(f.repo, '.baton', 'config.json'),
      JSON.stringify({
        routines: { digest: { cron: '0 8 * * *', tz: 'Nowhere/Land', agent: 'codex', template: 'digest' } },
      }),
    );
    await expect(f.service.list(f.repo)).rejects.toThrow('routines.digest: Unknown time zone "Nowhere/Land"');
    writeFileSync(
      join(f.repo, '.baton', 'config.json'),
      JSON.stringify({ routines: { digest: { cron: '0 8 * * *', agent: 'codex', template: 'digest' } } }),
    );
    expect((await f.service.list(f.repo)).map((r) => [r.name, r.source])).toEqual([['digest', 'config']]);
    await expect(f.service.remove('digest', f.repo)).rejects.toThrow('defined in .baton/config.json');
    writeFileSync(join(f.repo, '.baton', 'config.json'), JSON.stringify({}));
    expect(await f.service.list(f.repo)).toEqual([]);
  });
});

describe('templates', () => {
  it('TODO sweep: old TODOs become tasks by git blame age, none twice', async () => {
    const f = make('2026-11-23T09:00:00Z');
    f.commit(
      { 'a.ts': 'const a = 1; // TODO: drop the legacy path\n// FIXME handle EOF\n' },
      'old',
      '2026-08-01T12:00:00Z',
    );
    f.commit({ 'b.ts': '// TODO: recent thought\n' }, 'new', '2026-11-20T12:00:00Z');
    await f.service.start();
    await f.service.add({
      name: 'sweep',
      cwd: f.repo,
      spec: { cron: '0 9 * * 1', agent: 'scripted', template: 'todo-sweep', options: { days: 30 } },
    });
    await f.service.runNow('sweep', f.repo);
    expect(f.tasks.map((t) => t.title)).toEqual([
      'const a = 1; // TODO: drop the legacy path (a.ts:1)',
      '// FIXME handle EOF (a.ts:2)',
    ]);
    expect(f.dispatched[0]!.prompt).toContain('task #1: a.ts:1');
    f.settle(f.sessionNamed('sweep-1'), 'ready_for_review', 'Both still relevant.');
    await waitFor(() => f.of('routine.finished').length === 1);
    const second = await f.service.runNow('sweep', f.repo);
    expect(second).toMatchObject({ outcome: 'nothing', sessionId: null });
    expect(second.cause).toContain('2 old ones in all');
    expect(f.tasks).toHaveLength(2);
  });

  it('TODO sweep without tasks fails its run saying why', async () => {
    const f = make('2026-11-23T09:00:00Z', false);
    await f.service.add({
      name: 'sweep',
      cwd: f.repo,
      spec: { on: 'http', agent: 'scripted', template: 'todo-sweep' },
    });
    expect((await f.service.runNow('sweep', f.repo)).cause).toContain('tasks are not available');
  });

  it("digest: yesterday's sessions in, the report saved as a note (never over an earlier one)", async () => {
    const f = make('2026-11-23T08:00:00Z');
    await f.service.start();
    const project = f.store.ensureProject(f.repo);
    f.store.insert(
      {
        id: 'y1',
        project_id: project.id,
        name: 'watcher',
        agent: 'claude',
        prompt: 'fix the flaky watcher test',
        model: null,
        permission_mode: 'default',
        options_json: '{}',
        branch: 'baton/watcher',
        base_ref: 'main',
        base_commit: f.git('rev-parse', 'HEAD'),
        worktree: f.repo,
      },
      'ready_for_review',
    );
    f.db.prepare('UPDATE sessions SET last_event_at = ? WHERE id = ?').run('2026-11-22T15:00:00.000Z', 'y1');
    f.lastMessages.set('y1', 'Kept the old onChange signature.');
    await f.service.add({
      name: 'digest',
      cwd: f.repo,
      spec: { cron: '0 8 * * *', tz: 'UTC', agent: 'scripted', template: 'digest' },
    });
    await f.service.runNow('digest', f.repo);
    expect(f.dispatched[0]!.prompt).toContain('fix the flaky watcher test');
    expect(f.dispatched[0]!.prompt).toContain('Kept the old onChange signature.');
    expect(f.dispatched[0]!.instructions).toContain('watcher (claude, ready for review)');
    f.settle(
      f.sessionNamed('digest-1'),
      'ready_for_review',
      '# Digest of 2026-11-22\n\nwatcher kept the signature.',
    );
    await waitFor(() => f.of('routine.finished').length === 1);
    expect(readFileSync(join(f.repo, '.baton', 'notes', 'digest-2026-11-22.md'), 'utf8')).toBe(
      '# Digest of 2026-11-22\n\nwatcher kept the signature.\n',
    );
    expect(f.of('routine.finished')[0]!.data.summary).toContain('wrote .baton/notes/digest-2026-11-22.md');
    await f.service.runNow('digest', f.repo);
    f.settle(f.sessionNamed('digest-2'), 'ready_for_review', 'second');
    await waitFor(() => f.of('routine.finished').length === 2);
    expect(readFileSync(join(f.repo, '.baton', 'notes', 'digest-2026-11-22-2.md'), 'utf8')).toBe('second\n');
  });

  it('release-notes check: the notes at the tag against the log since the previous tag', async () => {
    const f = make('2026-11-23T09:00:00Z');
    f.commit({ 'CHANGELOG.md': '# 1.0\n- first release\n' }, 'release 1.0');
    f.git('tag', 'v1.0');
    f.commit({ 'cli.ts': 'json\n' }, 'add --json flag');
    f.commit({ 'CHANGELOG.md': '# 1.1\n- faster start\n' }, 'notes for 1.1');
    await f.service.start();
    await f.service.add({
      name: 'notes',
      cwd: f.repo,
      spec: { on: 'tag', agent: 'scripted', template: 'release-notes-check' },
    });
    f.git('tag', 'v1.1');
    await waitFor(() => f.dispatched.length === 1);
    const prompt = f.dispatched[0]!.prompt;
    expect(prompt).toContain('Check the release notes of v1.1 against what changed since v1.0');
    expect(prompt).toContain('- faster start');
    expect(prompt).toContain('add --json flag');
    expect(prompt).not.toContain('release 1.0');
  });

  it('stale work: nothing to do is a quiet run with no session', async () => {
    const f = make('2026-11-23T09:00:00Z');
    await f.service.add({
      name: 'stale',
      cwd: f.repo,
      spec: { on: 'http', agent: 'scripted', template: 'stale-work' },
    });
    expect(await f.service.runNow('stale', f.repo)).toMatchObject({ outcome: 'nothing', sessionId: null });
    f.git('branch', 'baton/forgotten');
    f.commit({ 'x.ts': 'x\n' }, 'x');
    f.git('checkout', '-q', 'baton/forgotten');
    f.commit({ 'y.ts': 'y\n' }, 'y');
    f.git('checkout', '-q', 'main');
    const run = await f.service.runNow('stale', f.repo);
    expect(run.outcome).toBe('running');
    expect(f.dispatched[0]!.prompt).toContain('- baton/forgotten');
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  await until(check, 'the condition holds', { timeoutMs, intervalMs: 1 });
}
