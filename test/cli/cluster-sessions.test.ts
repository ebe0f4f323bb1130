/**
 * Sessions across machines sharing one PostgreSQL (decision 127, "A shared workspace in the
 * supervisor"): two supervisors with their own BATON_HOME, one running a scripted session; the other
 * lists it (with its machine), peeks at it, reads and follows its events, answers its question and its
 * approval (one decision only, however many machines answer), and stops it — each through the machine
 * that runs it.
 */
import { describe, expect, it } from 'vitest';
import type { PeekView, SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import type { TestBaton } from '../support/baton.js';
import { exitOf, OutputWatcher } from '../support/process.js';
import { clusterMachines, sessionUntil } from '../support/cluster.js';
import { pollUntil } from '../support/wait.js';

const { database, machine } = clusterMachines();

/** `baton logs <ref> --json`: one event per line. */
async function logs(side: TestBaton, ref: string): Promise<BatonEvent[]> {
  const out = await side.ok(['logs', ref, '--json']);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as BatonEvent);
}

describe('sessions across two machines sharing a store', () => {
  it('lists, peeks at and answers the other machine’s session, which runs where it started', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const repo = beta.repo();
    const script = beta.script(
      [{ say: 'Looking around' }, { ask: 'Which database should I use?' }, { say: 'Using {{reply}}' }],
      { onReply: [{ say: 'Noted: {{reply}}' }] },
    );
    await beta.ok(
      ['dispatch', 'pick a database', '--name', 'asker', '--agent', 'scripted', '--script', script],
      { cwd: repo },
    );
    await beta.waitForState('asker', 'needs_input');

    const seen = await sessionUntil(
      alpha,
      'asker',
      (s) => s.state === 'needs_input',
      'alpha sees asker waiting',
    );
    expect(seen).toMatchObject({ machine: 'beta', agent: 'scripted', reason: { kind: 'question' } });
    // The table shows which machine runs each session.
    const table = await alpha.ok(['ls']);
    expect(table).toMatch(/MACHINE/);
    expect(table).toMatch(/asker\s+scripted\s+beta\s/);

    const peek = await alpha.json<PeekView>(['peek', 'asker']);
    expect(peek.session.machine).toBe('beta');
    // What the machine running it would show, from the events it published.
    const there = await beta.json<PeekView>(['peek', 'asker']);
    expect(peek.lastOutput).toBe('Which database should I use?');
    expect([peek.lastOutput, peek.currentStep]).toEqual([there.lastOutput, there.currentStep]);
    const events = await logs(alpha, 'asker');
    expect(events.map((e) => e.type)).toContain('question.asked');
    // The session's page reads its transcript the same way.
    const page = await alpha
      .client()
      .call('GET /api/sessions/:ref/transcript', { params: { ref: 'asker' }, query: {} });
    expect(page.events.map((e) => e.seq)).toEqual(events.map((e) => e.seq));

    // Followed from alpha as it happens on beta: replayed, then live, no gap and no repeat.
    const follow = alpha.spawn(['logs', 'asker', '-f', '--json']);
    const out = new OutputWatcher(follow.stdout!);
    await out.waitFor(/"type":"question\.asked"/);

    // The reply runs on beta: beta's own store records it.
    await alpha.ok(['reply', 'asker', 'postgres']);
    await beta.waitForEvent('asker', (e) => e.type === 'question.answered' && e.text === 'postgres');
    await sessionUntil(alpha, 'asker', (s) => s.state === 'ready_for_review', 'alpha sees asker done');
    await out.waitFor(/"to":"ready_for_review"/);
    expect(out.all).toContain('"text":"Using postgres"');
    follow.kill('SIGINT');
    expect(await exitOf(follow)).toBe(0);
    const followed = out.all
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as BatonEvent);
    expect(followed.map((e) => e.seq)).toEqual(followed.map((_, i) => i + 1));
    expect(beta.processes().length).toBeGreaterThan(0);
  });

  it('decides an approval once when both machines answer it, and stops the other machine’s session', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const repo = beta.repo();
    const script = beta.script([
      { say: 'About to clean' },
      { approve: { tool: 'Bash', input: 'rm -rf build', reason: 'clean the build' } },
      { say: 'cleaned' },
      { sleep: 600_000 },
    ]);
    await beta.ok(['dispatch', 'clean up', '--name', 'cleaner', '--agent', 'scripted', '--script', script], {
      cwd: repo,
    });
    await beta.waitForState('cleaner', 'needs_input');
    await sessionUntil(alpha, 'cleaner', (s) => s.state === 'needs_input', 'alpha sees the approval');

    const [remote, local] = await Promise.all([
      alpha.run(['approve', 'cleaner']),
      beta.run(['deny', 'cleaner']),
    ]);
    const outcomes = [remote, local].map((r) => r.code);
    expect(outcomes.filter((code) => code === 0)).toHaveLength(1);
    const refused = remote.code === 0 ? local : remote;
    expect(refused.stderr).toMatch(/^baton: /);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const decisions = (await logs(beta, 'cleaner')).filter((e) => e.type === 'approval.resolved');
    expect(decisions).toHaveLength(1);

    // Allowed or denied, the script goes on to its long sleep: a session at work to stop.
    await beta.waitForEvent('cleaner', (e) => e.type === 'message.added' && e.text === 'cleaned');
    await alpha.ok(['stop', 'cleaner']);
    await beta.waitForState('cleaner', 'stopped');
    await sessionUntil(alpha, 'cleaner', (s) => s.state === 'stopped', 'alpha sees it stopped');
  });

  it('shows a dead machine’s sessions as failed, naming the machine, and live again when it is back', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const repo = beta.repo();
    await beta.ok(
      [
        'dispatch',
        'wait',
        '--name',
        'orphan',
        '--agent',
        'scripted',
        '--script',
        beta.script([{ ask: 'Go on?' }]),
      ],
      { cwd: repo },
    );
    await sessionUntil(alpha, 'orphan', (s) => s.state === 'needs_input', 'alpha sees it waiting');

    // The board's and the page's live feed on alpha: a snapshot with beta's session, then its changes.
    const feed: { event: string; view: SessionView }[] = [];
    const reading = new AbortController();
    const stream = alpha.client().stream('/api/stream', reading.signal, (message) => {
      if (message.event === 'snapshot')
        for (const view of (JSON.parse(message.data) as { sessions: SessionView[] }).sessions)
          feed.push({ event: 'snapshot', view });
      if (message.event === 'session')
        feed.push({ event: 'session', view: JSON.parse(message.data) as SessionView });
      return false;
    });
    const fed = async (
      check: (item: { event: string; view: SessionView }) => boolean,
      what: string,
    ): Promise<void> => {
      await pollUntil(
        () => feed.map((f) => [f.event, f.view.name, f.view.state]),
        () => feed.some(check),
        `the feed shows ${what}`,
        { timeoutMs: 20_000 },
      );
    };
    await fed(
      (f) => f.event === 'snapshot' && f.view.name === 'orphan' && f.view.machine === 'beta',
      'beta’s session in the snapshot',
    );

    process.kill(beta.supervisorPid(), 'SIGKILL');
    await fed(
      (f) => f.event === 'session' && f.view.name === 'orphan' && f.view.state === 'failed',
      'the session failed',
    );
    const failed = await sessionUntil(alpha, 'orphan', (s) => s.state === 'failed', 'alpha sees it failed');
    expect(failed).toMatchObject({
      machine: 'beta',
      running: false,
      reason: {
        kind: 'error',
        message: expect.stringMatching(/^machine beta stopped heartbeating \(last at /) as unknown,
      },
    });
    expect(await alpha.ok(['ls'])).toMatch(/Failed \(1\)/);

    // Back (its session host outlived its supervisor): the session is as it was.
    await beta.ok(['daemon', 'start']);
    await sessionUntil(alpha, 'orphan', (s) => s.state === 'needs_input', 'alpha sees it waiting again');
    await fed(
      (f) => f.event === 'session' && f.view.name === 'orphan' && f.view.state === 'needs_input',
      'the session back',
    );

    // Stopped on purpose, it deregisters: its sessions are shown as last seen, not running.
    await beta.ok(['daemon', 'stop']);
    const away = await sessionUntil(alpha, 'orphan', (s) => !s.running, 'alpha sees beta away');
    expect(away).toMatchObject({
      state: 'needs_input',
      activity: expect.stringMatching(
        /^machine beta is not serving \(its supervisor was stopped\)/,
      ) as unknown,
    });
    reading.abort();
    await stream;
  });

  it('refuses a name two other machines both use, naming them, and takes the id', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const twins = [await machine('beta', url), await machine('gamma', url)];
    for (const side of twins)
      await side.ok(
        [
          'dispatch',
          'wait',
          '--name',
          'twin',
          '--agent',
          'scripted',
          '--script',
          side.script([{ ask: 'Go on?' }]),
        ],
        { cwd: side.repo() },
      );
    const seen = await pollUntil(
      async () =>
        (await alpha.json<SessionView[]>(['ls'])).filter(
          (s) => s.name === 'twin' && s.state === 'needs_input',
        ),
      (twins) => twins.length >= 2,
      'alpha sees both twins',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const ambiguous = await alpha.run(['reply', 'twin', 'yes']);
    expect(ambiguous.code).not.toBe(0);
    expect(ambiguous.stderr).toMatch(
      /"twin" matches 2 sessions \(twin on beta \(.{8}\), twin on gamma \(.{8}\)\)/,
    );
    const onGamma = seen.find((s) => s.machine === 'gamma');
    await alpha.ok(['reply', onGamma?.id ?? '', 'yes']);
    await twins[1]!.waitForEvent('twin', (e) => e.type === 'question.answered' && e.text === 'yes');
  });

  it('names the machine when it does not answer, and withdraws the command', async () => {
    const url = await database();
    const alpha = await machine('alpha', url, { BATON_CLUSTER_COMMAND_TIMEOUT_MS: '1500' });
    const beta = await machine('beta', url);
    const repo = beta.repo();
    await beta.ok(
      [
        'dispatch',
        'wait',
        '--name',
        'waiter',
        '--agent',
        'scripted',
        '--script',
        beta.script([{ ask: 'Go on?' }]),
      ],
      { cwd: repo },
    );
    await sessionUntil(alpha, 'waiter', (s) => s.state === 'needs_input', 'alpha sees it waiting');
    process.kill(beta.supervisorPid(), 'SIGSTOP');
    try {
      const answer = await alpha.run(['reply', 'waiter', 'yes']);
      expect(answer.code).not.toBe(0);
      expect(answer.stderr).toContain(
        'The machine "beta" did not take the command within 1500 ms, so it was withdrawn and will not run',
      );
    } finally {
      process.kill(beta.supervisorPid(), 'SIGCONT');
    }
    // Beta, back, never runs the withdrawn reply: the next one is the only answer it records.
    await alpha.ok(['reply', 'waiter', 'second']);
    const answers = (await logs(beta, 'waiter')).filter((e) => e.type === 'question.answered');
    expect(answers.map((e) => (e.type === 'question.answered' ? e.text : ''))).toEqual(['second']);
  });
});
