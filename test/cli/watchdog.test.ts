/**
 * Budgets and the watchdog through the real binary: scripted sessions report usage and run
 * failing commands in real worktrees; the supervisor pauses them (needs input, with the reason)
 * and a raised budget or a reply resumes them.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AlertList, BudgetList, CostReport } from '../../src/api/watchdog.js';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

async function events(name: string): Promise<BatonEvent[]> {
  return (await t.client().call('GET /api/sessions/:ref/events', { params: { ref: name }, query: { after: 0 } })).events;
}

describe('budgets', () => {
  it('interrupts a session within 1 s of the usage report that crosses its hard limit, says why, and resumes it when the budget is raised', async () => {
    await t.ok(['budget', 'set', '--session', '0.05usd'], { cwd: repo });
    const script = t.script(
      [
        { usage: { input: 1000, output: 100, usd: 0.02 } },
        { sleep: 100 },
        { usage: { input: 1000, output: 100, usd: 0.02 } },
        { sleep: 100 },
        { usage: { input: 1000, output: 100, usd: 0.02 } },
        { sleep: 60_000 },
        { say: 'never reached: the budget stopped me' },
      ],
      { onReply: [{ say: 'carrying on: {{reply}}' }] },
    );
    await t.ok(['dispatch', 'spend', '--name', 'spender', '--script', script], { cwd: repo });
    const paused = await t.waitForEvent('spender', (e) => e.type === 'state.changed' && e.to === 'needs_input');
    const crossing = (await events('spender')).filter((e) => e.type === 'usage.reported' && e.seq < paused.seq).pop();
    if (crossing === undefined) throw new Error('no usage report before the pause');
    expect(paused.type === 'state.changed' && paused.reason).toEqual({ kind: 'note', message: expect.stringMatching(/^paused for its budget: budget reached: spender spent \$0\.06 of its \$0\.05/) });
    const latencyMs = Date.parse(paused.ts) - Date.parse(crossing.ts);
    expect(latencyMs).toBeLessThan(1000);

    const alerts = await t.json<AlertList>(['alerts'], { cwd: repo });
    expect(alerts.alerts.map((a) => [a.rule, a.action, a.name])).toEqual(
      expect.arrayContaining([
        ['budget', 'pause', 'spender'],
        ['budget_warning', 'alert', 'spender'],
      ]),
    );

    const raised = await t.json<BudgetList>(['budget', 'set', '--session', '1usd'], { cwd: repo });
    expect(raised.resumed).toEqual(['spender']);
    await t.waitForEvent('spender', (e) => e.type === 'message.added' && e.role === 'assistant' && /carrying on: The budget was raised/.test(e.text));
    await t.waitForState('spender', 'ready_for_review');
    const open = await t.json<AlertList>(['alerts'], { cwd: repo });
    expect(open.alerts.filter((a) => a.rule === 'budget')).toEqual([]);
  });
});
