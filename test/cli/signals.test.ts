/**
 * Signals a user reads, through the real binary on real repositories with the scripted agent:
 * one priced figure for a session's cost in every view, terminal escapes kept out of what is
 * stored and sent, `ls` within the terminal's width and saying why a session is queued, and the
 * review queue's sizes known after a restart (decisions 154–156).
 */
import { describe, expect, it } from 'vitest';
import type { MergeResult } from '../../src/api/merge.js';
import type { PeekView, SessionView } from '../../src/api/index.js';
import type { CostReport } from '../../src/api/watchdog.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';
import { configure, finishedSession } from '../support/landing.js';
import { addTask } from '../support/tasks.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const ESC = '\u001b';

async function events(ref: string): Promise<BatonEvent[]> {
  return (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as BatonEvent);
}

async function dispatchDone(name: string, steps: unknown[]): Promise<SessionView> {
  await t.ok(['dispatch', `${name}: work`, '--name', name, '--script', t.script(steps)], { cwd: repo });
  return t.waitForState(name, 'ready_for_review');
}

describe('cost', () => {
  it('every view shows the ledger’s figure: tokens-only reports priced (Codex), and a mix of priced and self-costed ones (Claude)', async () => {
    // A Codex session reports tokens only: 4,000 in and 100 out of gpt-5.5 are $0.0060.
    await dispatchDone('codex-like', [
      { usage: { input: 4000, output: 100, model: 'gpt-5.5' } },
      { say: 'done' },
    ]);
    // Claude reports each response's input at once (priced by the table: 1,000 × $3/M = $0.0030)
    // and at the turn's end the rest with its own price ($0.0015): $0.0045 in all.
    await dispatchDone('claude-like', [
      { usage: { input: 1000, output: 0, model: 'claude-sonnet-4-5' } },
      { usage: { input: 0, output: 100, usd: 0.0015, model: 'claude-sonnet-4-5' } },
      { say: 'done' },
    ]);
    const cost = await t.json<CostReport>(['cost', '--json']);
    const costOf = (name: string) => cost.rows.find((r) => r.key.endsWith(`/${name}`))?.usd;
    expect(costOf('codex-like')).toBeCloseTo(0.006, 9);
    expect(costOf('claude-like')).toBeCloseTo(0.0045, 9);
    const text = await t.ok(['cost']);
    expect(text).toMatch(/codex-like .* \$0\.0060/);
    expect(text).toMatch(/claude-like .* \$0\.0045/);

    for (const [name, usd, shown] of [
      ['codex-like', 0.006, '$0.0060'],
      ['claude-like', 0.0045, '$0.0045'],
    ] as const) {
      // The API (and so the page and the board, which read it) …
      const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: name } });
      expect(session.costUsd).toBeCloseTo(usd, 9);
      expect((await t.json<SessionView[]>(['ls'])).find((s) => s.name === name)?.costUsd).toBeCloseTo(usd, 9);
      // … `ls`, `peek` and the usage chart's last point.
      expect(await t.ok(['ls'])).toMatch(new RegExp(`${name} .*tok \\${shown}`));
      expect(await t.ok(['peek', name])).toContain(`out, ${shown}`);
      expect((await t.json<PeekView>(['peek', name])).session.costUsd).toBeCloseTo(usd, 9);
      const usage = await callApi(t.home, 'GET', `/api/sessions/${session.id}/usage`);
      const points = (usage.body as { points: { costUsd: number }[] }).points;
      expect(points.at(-1)?.costUsd).toBeCloseTo(usd, 9);
      expect(points[0]?.costUsd).toBeGreaterThan(0);
    }
  });
});

describe('terminal escapes', () => {
  it('a failed check’s colours never reach the report, the agent, the events the page reads, or the log', async () => {
    // What a vitest run prints on a terminal: colours, bold, and a progress line redrawn with \r.
    const check =
      "printf '\\033[2m running \\033[22m\\r\\033[31m FAIL \\033[39m src/a.test.ts > adds\\n\\033[1mTests\\033[22m  \\033[31m1 failed\\033[39m\\n'; exit 1";
    configure(t, repo, { merge: { check } });
    await finishedSession(t, repo, 'red', { uncommitted: { 'a.txt': 'x\n' } });
    const run = await t.run(['merge', 'red', '--json'], { cwd: repo });
    const result = JSON.parse(run.stdout) as MergeResult;
    expect(result).toMatchObject({ outcome: 'failed', reason: 'check_failed', replied: true });
    expect(result.check.outputTail).toBe(' FAIL  src/a.test.ts > adds\nTests  1 failed');
    // Sent to the agent as a reply: plain.
    const reply = await t.waitForEvent(
      'red',
      (e) => e.type === 'message.added' && e.role === 'user' && e.text.includes('FAIL'),
    );
    expect(reply.type === 'message.added' && reply.text).toContain(' FAIL  src/a.test.ts > adds');
    expect(JSON.stringify(reply)).not.toContain(ESC);
    // The merge's events, which the session page shows.
    const workspace = (await t.client().call('GET /api/workspace/events')).events.filter((e) =>
      e.type.startsWith('merge.'),
    );
    expect(workspace.length).toBeGreaterThan(0);
    expect(JSON.stringify(workspace)).not.toContain(ESC);
    expect((await t.run(['merge', 'red'], { cwd: repo })).stderr).not.toContain(ESC);
  });

  it('a command’s coloured output is stored plain in the session’s log', async () => {
    await dispatchDone('colours', [{ run: "printf '\\033[32m✓\\033[39m 3 passed\\n'" }, { say: 'ok' }]);
    const finished = (await events('colours')).find((e) => e.type === 'tool.finished');
    expect(finished?.type === 'tool.finished' && finished.output).toBe('✓ 3 passed\n');
    expect(await t.ok(['logs', 'colours', '--full'])).not.toContain(ESC);
  });
});

describe('baton ls', () => {
  it('fits 80 columns and 40 columns, a 40-character name and a wide usage figure included', async () => {
    const long = 'refactor-the-config-loader-into-modules1';
    expect(long).toHaveLength(40);
    await dispatchDone(long, [{ usage: { input: 1_200_000, output: 900, usd: 12.34 } }, { say: 'done' }]);
    await dispatchDone('short', [{ say: 'done' }]);
    for (const columns of [80, 40]) {
      const out = (await t.run(['ls'], { env: { COLUMNS: String(columns) } })).stdout;
      const lines = out.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) expect([...line].length, `"${line}"`).toBeLessThanOrEqual(columns);
    }
    const wide = (await t.run(['ls'], { env: { COLUMNS: '80' } })).stdout;
    // At 80 the name stays whole; the usage column gives way first.
    expect(wide).toContain(long);
    const narrow = (await t.run(['ls'], { env: { COLUMNS: '40' } })).stdout;
    expect(narrow).toMatch(/refactor-…/);
    // Without a width (a pipe with COLUMNS unset) nothing is cut.
    expect(await t.ok(['ls'])).toMatch(new RegExp(`${long} .*1\\.2M tok \\$12\\.34`));
  });

  it('says why a queued session waits: the task it is held for', async () => {
    const first = await addTask(t, repo, 'the watcher');
    const second = await addTask(t, repo, 'IPC handlers', '--after', String(first.id));
    await t.ok(
      [
        'task',
        'start',
        String(second.id),
        '--agent',
        'scripted',
        '--name',
        'ipc',
        '--script',
        t.script([{ say: 'done' }]),
      ],
      { cwd: repo },
    );
    const held = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'ipc' } });
    expect(held.session.state).toBe('queued');
    expect(held.session.heldBy).toBe(`after task ${first.id} (the watcher) lands`);
    expect(await t.ok(['ls'])).toMatch(
      new RegExp(`ipc .*queued #1: after task ${first.id} \\(the watcher\\) lands`),
    );
  });

  it('shows the review queue’s sizes at once after the supervisor starts again', async () => {
    await finishedSession(t, repo, 'one', { uncommitted: { 'one.txt': 'a\nb\n' } });
    await finishedSession(t, repo, 'two', { uncommitted: { 'two.txt': 'c\n' } });
    // Measured while it runs (each session as it became ready).
    const measured = async () => {
      for (;;) {
        const out = await t.ok(['ls']);
        if (!out.includes('not measured')) return out;
      }
    };
    expect(await measured()).toContain('Review queue: 2 sessions ready, 2 files, +3 -0 lines');
    await t.ok(['daemon', 'stop']);
    await t.ok(['daemon', 'start']);
    const first = await t.ok(['ls']);
    expect(first).toContain('Review queue: 2 sessions ready, 2 files, +3 -0 lines');
    expect(first).not.toContain('not measured');
  });
});
