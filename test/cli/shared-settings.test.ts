/**
 * Allow rules and budgets on a shared store (decision 130, "Allow rules and budgets behind one store
 * interface"): two supervisors sharing a test PostgreSQL and a bare git remote hold to one set. A rule
 * made in alpha's checkout answers an approval in beta's clone of the same remote, and a revoke on beta
 * is gone on alpha; a budget set on alpha pauses a session on beta, whose alerts alpha lists and
 * acknowledges, and raising it on alpha resumes that session; a day budget counts both machines' spend.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AllowRuleView, PolicyView } from '../../src/api/policy.js';
import type { AlertList, BudgetList } from '../../src/api/watchdog.js';
import type { TestBaton } from '../support/baton.js';
import { clusterMachines, sharedClones } from '../support/cluster.js';
import { pollUntil } from '../support/wait.js';

const { database, machine } = clusterMachines();

/** Polls `read` until `check` holds: another machine's change comes through the store, with no event here to wait on. */
async function until<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  return pollUntil(read, check, what, { timeoutMs, intervalMs: 100 });
}

describe('settings shared by the machines of a workspace', () => {
  it("an allow rule made on one machine answers an approval in another machine's clone, and a revoke there holds here", async () => {
    const url = await database();
    const [alpha, beta] = [await machine('alpha', url), await machine('beta', url)];
    const { here, there } = sharedClones(alpha, beta);
    const made = await alpha.json<AllowRuleView>(['policy', 'allow', 'echo ran >> ran.txt', '--here'], {
      cwd: here,
    });
    expect(made).toMatchObject({ project: here, pattern: 'echo ran >> ran.txt', source: 'cli' });
    // Listed on beta as a rule of its own clone.
    expect((await beta.json<PolicyView>(['policy', 'ls'], { cwd: there })).allow).toEqual([
      { ...made, project: there },
    ]);

    const approve = { approve: { tool: 'Bash', input: 'echo ran >> ran.txt' } };
    await beta.ok(
      [
        'dispatch',
        'run it',
        '--name',
        'runner',
        '--agent',
        'scripted',
        '--script',
        beta.script([approve], { onReply: [approve] }),
      ],
      { cwd: there },
    );
    const resolved = await beta.waitForEvent(
      'runner',
      (e) => e.type === 'approval.resolved' && e.reason === `approved by allow rule ${made.id}`,
    );
    expect(resolved).toMatchObject({ decision: 'allow' });
    const session = await beta.waitForState('runner', 'ready_for_review');
    expect(readFileSync(join(session.worktree, 'ran.txt'), 'utf8')).toBe('ran\n');

    await beta.ok(['policy', 'revoke', String(made.id)], { cwd: there });
    expect((await alpha.json<PolicyView>(['policy', 'ls'], { cwd: here })).allow).toEqual([]);
    await beta.ok(['reply', 'runner', 'again'], { cwd: there });
    await beta.waitForState('runner', 'needs_input');
  });

  it('a budget set on one machine pauses a session on another, and raising it there resumes the session', async () => {
    const url = await database();
    const [alpha, beta] = [await machine('alpha', url), await machine('beta', url)];
    await alpha.ok(['budget', 'set', '--session', '0.05usd']);
    await until(
      () => beta.json<BudgetList>(['budget', 'ls']),
      (list) => list.budgets.length === 1,
      'beta lists the budget',
    );
    const repo = beta.repo('spend');
    const script = beta.script(
      [
        { usage: { input: 1000, output: 100, usd: 0.02 } },
        { sleep: 100 },
        { usage: { input: 1000, output: 100, usd: 0.02 } },
        { sleep: 100 },
        { usage: { input: 1000, output: 100, usd: 0.02 } },
        { sleep: 60_000 },
        { say: 'never reached' },
      ],
      { onReply: [{ say: 'carrying on: {{reply}}' }] },
    );
    await beta.ok(['dispatch', 'spend', '--name', 'spender', '--agent', 'scripted', '--script', script], {
      cwd: repo,
    });
    const paused = await beta.waitForEvent(
      'spender',
      (e) => e.type === 'state.changed' && e.to === 'needs_input',
    );
    expect(paused.type === 'state.changed' && paused.reason).toEqual({
      kind: 'note',
      message: expect.stringMatching(
        /^paused for its budget: budget reached: spender spent \$0\.06 of its \$0\.05/,
      ),
    });

    // The alert beta's watchdog raised is alpha's to see, naming beta.
    const alerts = await alpha.json<AlertList>(['alerts']);
    expect(alerts.alerts.find((a) => a.rule === 'budget')).toMatchObject({
      name: 'spender',
      machine: 'beta',
      action: 'pause',
    });
    expect(await alpha.ok(['alerts'])).toMatch(/spender on beta {2}budget: budget reached/);

    const raised = await alpha.json<BudgetList>(['budget', 'set', '--session', '1usd']);
    expect(raised.budgets.map((b) => [b.scope, b.limitUsd])).toEqual([['session', 1]]);
    await beta.waitForEvent(
      'spender',
      (e) =>
        e.type === 'message.added' &&
        e.role === 'assistant' &&
        /carrying on: The budget was raised/.test(e.text),
    );
    await beta.waitForState('spender', 'ready_for_review');
    expect((await beta.json<BudgetList>(['budget', 'ls'])).budgets.map((b) => [b.scope, b.limitUsd])).toEqual(
      [['session', 1]],
    );

    // Resumed on beta, its budget alert is acknowledged for every machine.
    expect((await alpha.json<AlertList>(['alerts'])).alerts.filter((a) => a.rule === 'budget')).toEqual([]);
    const warning = (await beta.json<AlertList>(['alerts'])).alerts.find((a) => a.rule === 'budget_warning');
    expect(warning).toMatchObject({ machine: 'beta' });
    await alpha.ok(['alerts', '--ack', warning?.id ?? '']);
    expect((await beta.json<AlertList>(['alerts'])).alerts).toEqual([]);

    await beta.ok(['budget', 'rm', 'session']);
    await until(
      () => alpha.json<BudgetList>(['budget', 'ls']),
      (list) => list.budgets.length === 0,
      'alpha sees the budget removed',
    );
  });

  it("a day budget counts every machine's spend: a session here crosses it with another machine's, and both machines' sessions at work pause", async () => {
    const url = await database();
    const [alpha, beta] = [await machine('alpha', url), await machine('beta', url)];
    await alpha.ok(['budget', 'set', '--day', '0.10usd']);
    await until(
      () => beta.json<BudgetList>(['budget', 'ls']),
      (list) => list.budgets.length === 1,
      'beta lists the day budget',
    );
    const spending = (side: TestBaton, usd: number) =>
      side.script(
        [
          { usage: { input: 1000, output: 100, usd } },
          { say: 'spent' },
          { sleep: 60_000 },
          { say: 'never reached' },
        ],
        { onReply: [{ say: 'carrying on' }] },
      );
    await beta.ok(
      ['dispatch', 'spend there', '--name', 'there', '--agent', 'scripted', '--script', spending(beta, 0.06)],
      { cwd: beta.repo('b') },
    );
    await beta.waitForEvent('there', (e) => e.type === 'message.added' && e.text === 'spent');
    // Alpha counts beta's spend against the day before any of its own.
    const seen = await until(
      () => alpha.json<BudgetList>(['budget', 'ls']),
      (list) => Math.abs((list.budgets[0]?.usedUsd ?? 0) - 0.06) < 1e-9,
      "alpha counts beta's $0.06",
    );
    expect(seen.budgets[0]!.summary).toMatch(/^today: \$0\.06 of \$0\.10/);

    await alpha.ok(
      ['dispatch', 'spend here', '--name', 'here', '--agent', 'scripted', '--script', spending(alpha, 0.05)],
      { cwd: alpha.repo('a') },
    );
    const paused = await alpha.waitForEvent(
      'here',
      (e) => e.type === 'state.changed' && e.to === 'needs_input',
    );
    expect(paused.type === 'state.changed' && paused.reason).toEqual({
      kind: 'note',
      message: expect.stringMatching(/^paused for its budget: budget reached: today: \$0\.11 of \$0\.10/),
    });
    // Beta hears of alpha's spend and pauses its own session at work.
    const there = await beta.waitForEvent(
      'there',
      (e) => e.type === 'state.changed' && e.to === 'needs_input',
    );
    expect(there.type === 'state.changed' && there.reason).toEqual({
      kind: 'note',
      message: expect.stringMatching(/^paused for its budget: budget reached: today: \$0\.11 of \$0\.10/),
    });
  });
});
