import { describe, expect, it } from 'vitest';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('baton wait', () => {
  it('exits 10 on a question, blocks through work to exit 0 when ready for review, and 11 on a failure', async () => {
    const gate = t.script([{ say: 'working' }, { ask: 'go on?' }, { say: 'done' }]);
    await t.ok(['dispatch', 'x', '--name', 'gated', '--script', gate], { cwd: repo });
    const asked = await t.run(['wait', 'gated'], { cwd: repo });
    expect([asked.code, asked.stdout]).toEqual([10, 'gated: needs input: go on?\n']);

    // A wait begun while the agent works sees it through to the end.
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'busy',
        '--script',
        t.script([{ say: 'thinking' }, { sleep: 1500 }, { say: 'done' }]),
      ],
      { cwd: repo },
    );
    await t.waitForEvent('busy', (e) => e.type === 'message.added' && e.text === 'thinking');
    const finished = await t.run(['wait', 'busy'], { cwd: repo });
    expect([finished.code, finished.stdout]).toEqual([0, 'busy: ready for review\n']);

    await t.ok(['dispatch', 'y', '--name', 'broken', '--script', t.script([{ fail: 'tests failed' }])], {
      cwd: repo,
    });
    const failed = await t.run(['wait', 'broken', '--json'], { cwd: repo });
    expect(failed.code).toBe(11);
    expect(JSON.parse(failed.stdout)).toEqual([
      expect.objectContaining({
        name: 'broken',
        state: 'failed',
        reason: expect.objectContaining({ kind: 'error' }),
      }),
    ]);
  });

  it('dispatch --wait returns when the session settles, and waits on several at once with one exit code', async () => {
    const result = await t.run(
      [
        'dispatch',
        'quick',
        '--name',
        'quick',
        '--wait',
        '--script',
        t.script([{ write: { path: 'a.txt', content: 'a\n' } }]),
      ],
      { cwd: repo },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Dispatched quick \(\w+\) on baton\/quick; waiting until it needs input or ends…\nquick: ready for review\n$/,
    );

    await t.ok(['dispatch', 'x', '--name', 'asks', '--script', t.script([{ ask: 'which?' }])], { cwd: repo });
    await t.ok(['dispatch', 'x', '--name', 'fails', '--script', t.script([{ fail: 'no' }])], { cwd: repo });
    const both = await t.run(['wait', 'asks', 'fails', 'quick'], { cwd: repo });
    expect(both.code).toBe(11);
    expect(both.stdout.split('\n').filter(Boolean).sort()).toEqual(
      ['asks: needs input: which?', 'fails: failed: no', 'quick: ready for review'].sort(),
    );
  });

  it('gives up after --timeout with 124, sees a stop (or an rm) as 12, and refuses a bad timeout', async () => {
    await t.ok(
      ['dispatch', 'x', '--name', 'slow', '--script', t.script([{ say: 'busy' }, { sleep: 60_000 }])],
      { cwd: repo },
    );
    await t.waitForState('slow', 'working');
    const timedOut = await t.run(['wait', 'slow', '--timeout', '0.5'], { cwd: repo });
    expect([timedOut.code, timedOut.stdout]).toEqual([124, 'Timed out; still waiting on slow.\n']);

    const waiting = t.run(['wait', 'slow'], { cwd: repo });
    await t.waitForState('slow', 'working');
    await t.ok(['stop', 'slow'], { cwd: repo });
    const stopped = await waiting;
    expect([stopped.code, stopped.stdout]).toEqual([12, 'slow: stopped: stopped by the user\n']);

    await t.ok(
      ['dispatch', 'x', '--name', 'doomed', '--script', t.script([{ say: 'busy' }, { sleep: 60_000 }])],
      { cwd: repo },
    );
    await t.waitForState('doomed', 'working');
    const watching = t.run(['wait', 'doomed'], { cwd: repo });
    await t.ok(['rm', 'doomed', '--force'], { cwd: repo });
    // rm stops a working session first: the wait reports the stop it saw.
    expect((await watching).code).toBe(12);

    const bad = await t.run(['wait', 'slow', '--timeout', 'soon'], { cwd: repo });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout must be a number of seconds');
    const unknown = await t.run(['wait', 'nobody'], { cwd: repo });
    expect(unknown.code).toBe(3);
  });
});

describe('acting on many sessions', () => {
  it('rm removes several, rm --completed every completed one, and one unknown name fails only itself', async () => {
    for (const name of ['a', 'b', 'c', 'd'])
      await t.ok(['dispatch', 'x', '--name', name, '--script', t.script([{ say: name }])], { cwd: repo });
    await t.run(['wait', 'a', 'b', 'c', 'd'], { cwd: repo });
    await t.ok(['done', 'c'], { cwd: repo });
    await t.ok(['done', 'd'], { cwd: repo });

    const some = await t.run(['rm', 'a', 'nobody', 'b'], { cwd: repo });
    expect(some.code).toBe(3);
    expect(some.stdout.match(/^Removed \w+ /gm)).toEqual(['Removed a ', 'Removed b ']);
    expect(some.stderr).toMatch(/nobody/);

    const completed = await t.json<unknown[]>(['rm', '--completed', '--json'], { cwd: repo });
    expect(completed).toHaveLength(2);
    expect(await t.json<unknown[]>(['ls', '--json'], { cwd: repo })).toEqual([]);
    expect(await t.ok(['rm', '--completed'], { cwd: repo })).toBe(
      'Nothing to remove: no completed sessions.\n',
    );
    expect((await t.run(['rm'], { cwd: repo })).stderr).toContain('Which sessions?');
  });

  it('stop --all stops every busy session and leaves the others; ls --state filters', async () => {
    await t.ok(['dispatch', 'x', '--name', 'idle', '--script', t.script([{ say: 'idle' }])], { cwd: repo });
    for (const name of ['w1', 'w2'])
      await t.ok(
        ['dispatch', 'x', '--name', name, '--script', t.script([{ say: 'busy' }, { sleep: 60_000 }])],
        { cwd: repo },
      );
    await t.ok(['dispatch', 'x', '--name', 'q', '--script', t.script([{ ask: 'which?' }])], { cwd: repo });
    await Promise.all([
      t.waitForState('idle', 'ready_for_review'),
      t.waitForState('w1', 'working'),
      t.waitForState('w2', 'working'),
      t.waitForState('q', 'needs_input'),
    ]);

    const working = await t.json<{ name: string }[]>(['ls', '--state', 'working,needs-input', '--json'], {
      cwd: repo,
    });
    expect(working.map((s) => s.name).sort()).toEqual(['q', 'w1', 'w2']);
    expect(await t.ok(['ls', '--state', 'ready_for_review'], { cwd: repo })).toMatch(
      /^ {2}ID .*\nReady for review \(1\)\n .* idle /,
    );
    const bad = await t.run(['ls', '--state', 'sleeping'], { cwd: repo });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'baton: Unknown state "sleeping"; states are: queued, preparing, starting, working, needs_input, ready_for_review, completed, failed, stopped\n',
    ]);

    const stopped = await t.json<{ name: string; state: string }[]>(['stop', '--all', '--json'], {
      cwd: repo,
    });
    expect(stopped.map((s) => [s.name, s.state]).sort()).toEqual([
      ['q', 'stopped'],
      ['w1', 'stopped'],
      ['w2', 'stopped'],
    ]);
    expect(
      (
        (await t.json<{ state: string }>(['peek', 'idle', '--json'], { cwd: repo })) as unknown as {
          session: { state: string };
        }
      ).session.state,
    ).toBe('ready_for_review');
    expect(await t.ok(['stop', '--all'], { cwd: repo })).toBe(
      'Nothing to stop: no session is queued, working or waiting for input.\n',
    );
  });
});
