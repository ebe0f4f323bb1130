import { describe, expect, it } from 'vitest';
import type { BatonEvent, EventBody } from '../events/index.js';
import { resolveRules, SessionRules, type Finding } from './rules.js';

let seq = 0;
const at = (body: EventBody): BatonEvent =>
  ({ ...body, seq: ++seq, ts: new Date(0).toISOString() }) as BatonEvent;
const run = (id: string, command: string, ok: boolean): BatonEvent[] => [
  at({ type: 'tool.started', toolId: id, tool: 'shell', kind: 'run', input: command }),
  at({
    type: 'tool.finished',
    toolId: id,
    tool: 'shell',
    ok,
    ...(ok ? {} : { exitCode: 1, output: 'FAIL src/a.test.ts' }),
  }),
];
const tested = (id: string, command: string, exitCode: number, output: string): BatonEvent[] => [
  at({ type: 'tool.started', toolId: id, tool: 'shell', kind: 'run', input: command }),
  at({ type: 'tool.finished', toolId: id, tool: 'shell', ok: exitCode === 0, exitCode, output }),
];
const edit = (id: string, path: string): BatonEvent[] => [
  at({ type: 'tool.started', toolId: id, tool: 'write', kind: 'edit', input: path, files: [path] }),
  at({ type: 'tool.finished', toolId: id, tool: 'write', ok: true, files: [path] }),
];
const feed = (rules: SessionRules, events: BatonEvent[], settings = resolveRules(undefined)): Finding[] =>
  events.flatMap((event) => rules.observe(event, settings));
/** Only the no-change findings: a test command run again and again is also a loop, which other tests cover. */
const quiet = (
  rules: SessionRules,
  events: BatonEvent[],
  settings: ReturnType<typeof resolveRules>,
): Finding[] => feed(rules, events, settings).filter((f) => f.rule === 'no_change');

describe('the watchdog rules on a session’s events', () => {
  it('flags the same failing command repeated with nothing changed; a test run changes nothing, so it only alerts', () => {
    const rules = new SessionRules('/w', undefined);
    const findings = feed(rules, [
      ...run('1', 'npm test', false),
      ...run('2', 'cat log', true),
      ...run('3', 'npm test', false),
      ...run('4', 'npm test', false),
    ]);
    const loop = findings.filter((f) => f.rule === 'loop');
    expect(loop).toEqual([
      expect.objectContaining({
        rule: 'loop',
        action: 'alert',
        key: 'loop',
        message: 'the same failing command 3 times with no file changed in between: shell npm test',
        evidence: [
          '3× shell npm test',
          'no side effects; $0.00 spent in the loop; reported only',
          'last output: FAIL src/a.test.ts',
        ],
      }),
    ]);
  });

  it('does not call it a loop when a file changed between the failures', () => {
    const rules = new SessionRules('/w', undefined);
    const findings = feed(rules, [
      ...run('1', 'npm test', false),
      ...edit('e1', 'src/a.ts'),
      ...run('2', 'npm test', false),
      ...edit('e2', 'src/a.ts'),
      ...run('3', 'npm test', false),
    ]);
    expect(findings.filter((f) => f.rule === 'loop')).toEqual([]);
  });

  it('does not call it a loop when the failing test run ends differently each time', () => {
    const rules = new SessionRules('/w', undefined);
    const findings = feed(rules, [
      ...tested('1', 'npm test', 1, '3 failed, 12 passed'),
      ...run('x', 'cat log', true),
      ...tested('2', 'npm test', 1, '2 failed, 13 passed'),
      ...run('y', 'cat log', true),
      ...tested('3', 'npm test', 1, '1 failed, 14 passed'),
    ]);
    expect(findings.filter((f) => f.rule === 'loop')).toEqual([]);
  });

  it('sees through a flaky suite: flipping between results already had is neither progress nor a fresh attempt', () => {
    const rules = new SessionRules('/w', undefined);
    const settings = resolveRules({ noChange: { turns: 3 } });
    const turn = (failed: number): BatonEvent[] => [
      ...tested(`${++seq}`, 'npm test', 1, `${failed} failed, 12 passed`),
      at({ type: 'turn.completed', outcome: 'success' }),
    ];
    const findings = feed(rules, [...turn(3), ...turn(2), ...turn(3), ...turn(2), ...turn(3)], settings);
    expect(findings.filter((f) => f.rule === 'loop').map((f) => f.message)).toContain(
      'the same failing command 3 times with no file changed in between: shell npm test',
    );
    expect(findings.filter((f) => f.rule === 'no_change').map((f) => f.evidence)).toEqual([
      [
        '3 turns: no file changed; `npm test` ran 3 times, flipping between 2 results it had already had (last: failed, 3 failed, 12 passed)',
      ],
    ]);
    // A file change starts a new stretch: the result it brings is progress, as before.
    const fresh = feed(
      rules,
      [...edit('e', 'src/a.ts'), at({ type: 'turn.completed', outcome: 'success' }), ...turn(1), ...turn(0)],
      settings,
    );
    expect(fresh.filter((f) => f.rule === 'no_change' || f.rule === 'loop')).toEqual([]);
  });

  it('flags the same tool call three times in a row: an alert for a harmless one, a pause for one with side effects', () => {
    const findings = feed(new SessionRules('/w', undefined), [
      ...run('1', 'ls', true),
      ...run('2', 'ls', true),
      ...run('3', 'ls', true),
    ]);
    expect(findings).toEqual([
      expect.objectContaining({
        rule: 'loop',
        key: 'loop',
        action: 'alert',
        message: 'the same call 3 times, ending the same way: shell ls',
      }),
    ]);
    const writes = feed(new SessionRules('/w', undefined), [
      ...run('1', 'touch x', true),
      ...run('2', 'touch x', true),
      ...run('3', 'touch x', true),
    ]);
    expect(writes).toEqual([expect.objectContaining({ rule: 'loop', key: 'loop:pause', action: 'pause' })]);
  });

  it('escalates a harmless loop to a pause once it spends `pauseUsd`, or reaches `pauseAfter` repeats; a set action applies to every loop', () => {
    const rules = new SessionRules('/w', undefined);
    const spent = (n: number): BatonEvent[] =>
      Array.from({ length: n }, (_, i) => [
        ...run(`s${i}`, 'cat big.ts', true),
        at({ type: 'usage.reported', inputTokens: 1, outputTokens: 1, costUsd: 0.3 }),
      ]).flat();
    expect(feed(rules, spent(3)).map((f) => f.action)).toEqual(['pause']);
    const long = feed(
      new SessionRules('/w', undefined),
      Array.from({ length: 10 }, (_, i) => run(`l${i}`, 'ls', true)).flat(),
    );
    expect(long.map((f) => [f.action, f.key])).toEqual([
      ['alert', 'loop'],
      ['pause', 'loop:pause'],
    ]);
    const strict = resolveRules({ loop: { action: 'pause' } });
    expect(
      feed(
        new SessionRules('/w', undefined),
        Array.from({ length: 3 }, (_, i) => run(`p${i}`, 'ls', true)).flat(),
        strict,
      ).map((f) => f.action),
    ).toEqual(['pause']);
  });

  it('counts errors in a row and forgets them after a success', () => {
    const rules = new SessionRules('/w', undefined);
    const twice = feed(rules, [
      at({ type: 'error.raised', message: 'boom', fatal: false }),
      ...run('1', 'a', false),
      ...run('2', 'b', true),
    ]);
    expect(twice).toEqual([]);
    const thrice = feed(rules, [
      ...run('3', 'c', false),
      ...run('4', 'd', false),
      at({ type: 'error.raised', message: 'api 500', fatal: false }),
    ]);
    expect(thrice).toEqual([
      expect.objectContaining({
        rule: 'repeated_errors',
        evidence: ['shell failed (exit 1): c', 'shell failed (exit 1): d', 'api 500'],
      }),
    ]);
  });

  it('catches an edit outside the task scope (relative or absolute, or outside the worktree)', () => {
    const rules = new SessionRules('/w', ['src/watcher/**']);
    const findings = feed(rules, [
      ...edit('1', 'src/watcher/index.ts'),
      ...edit('2', 'src/ipc/handlers.ts'),
      ...edit('3', '/w/src/watcher/a.ts'),
      ...edit('4', '/etc/hosts'),
    ]);
    expect(findings.map((f) => [f.rule, f.key])).toEqual([
      ['out_of_scope', 'scope:src/ipc/handlers.ts'],
      ['out_of_scope', 'scope:/etc/hosts'],
    ]);
    expect(findings[0]?.evidence).toEqual(['edited src/ipc/handlers.ts', 'scope: src/watcher/**']);
  });

  it('has no scope to check without one', () => {
    expect(feed(new SessionRules('/w', undefined), edit('1', 'anything.ts'))).toEqual([]);
  });

  it('flags many turns that change no file', () => {
    const rules = new SessionRules('/w', undefined);
    const settings = resolveRules({ noChange: { turns: 2, action: 'stop' } });
    const turn = (): BatonEvent => at({ type: 'turn.completed', outcome: 'success' });
    expect(feed(rules, [...edit('1', 'a'), turn(), turn()], settings)).toEqual([]);
    expect(feed(rules, [turn()], settings)).toEqual([
      expect.objectContaining({ rule: 'no_change', action: 'stop' }),
    ]);
  });

  it('counts a turn whose test result changed as progress, though it changed no file', () => {
    const rules = new SessionRules('/w', undefined);
    const settings = resolveRules({ noChange: { turns: 3 } });
    const turn = (command: string, output: string): BatonEvent[] => [
      ...tested(`${++seq}`, command, 1, output),
      at({ type: 'turn.completed', outcome: 'success' }),
    ];
    const fewer = [
      ' Tests  3 failed | 12 passed (15)',
      ' Tests  2 failed | 13 passed (15)',
      ' Tests  1 failed | 14 passed (15)',
      ' Tests  1 failed | 14 passed (15)',
    ];
    expect(fewer.flatMap((output) => quiet(rules, turn('npm test', output), settings))).toEqual([]);
    const same = quiet(
      rules,
      [
        ...turn('npm test', ' Tests  1 failed | 14 passed (15) in 2.1s'),
        ...turn('npx vitest run', 'Tests: 1 failed, 14 passed, 15 total'),
      ],
      settings,
    );
    expect(same).toEqual([
      expect.objectContaining({
        rule: 'no_change',
        message: '3 turns in a row changed no file and no test result',
        evidence: [
          '3 turns: no file changed; `npm test` failed the same way each time (1 failed, 14 passed); `npx vitest run` ran once and failed (1 failed, 14 passed)',
        ],
      }),
    ]);
  });

  it('says when no tests ran in the quiet turns, and leaves commands that are not test runs out', () => {
    const rules = new SessionRules('/w', undefined);
    const turn = (): BatonEvent[] => [
      ...tested(`${++seq}`, 'echo 3 passed', 0, '3 passed'),
      at({ type: 'turn.completed', outcome: 'success' }),
    ];
    const findings = quiet(rules, [...turn(), ...turn()], resolveRules({ noChange: { turns: 2 } }));
    expect(findings.map((f) => f.evidence)).toEqual([['2 turns: no file changed; no tests run']]);
  });

  it('takes the repository’s merge check as a test run: a new exit code resets the count', () => {
    const rules = new SessionRules('/w', undefined);
    const settings = resolveRules({ noChange: { turns: 2 } }, undefined, ['./scripts/check.sh', '--fast']);
    const turn = (code: number): BatonEvent[] => [
      ...tested(`${++seq}`, 'cd sub && ./scripts/check.sh --fast', code, 'boom'),
      at({ type: 'turn.completed', outcome: 'success' }),
    ];
    expect(quiet(rules, [...turn(1), ...turn(2), ...turn(3)], settings)).toEqual([]);
    expect(quiet(rules, [...turn(3), ...turn(3)], settings).map((f) => f.evidence)).toEqual([
      ['2 turns: no file changed; `./scripts/check.sh --fast` failed the same way each time (exit 3)'],
    ]);
  });

  it('takes the repository settings over the defaults, and false turns a rule off', () => {
    const settings = resolveRules({
      loop: false,
      noProgress: { minutes: 2 },
      approvalWait: { minutes: 1, action: 'stop' },
    });
    expect(settings.loop).toBeUndefined();
    expect(settings.noProgressMs).toEqual({ action: 'alert', limit: 120_000 });
    expect(settings.approvalWaitMs).toEqual({ action: 'stop', limit: 60_000 });
    expect(resolveRules(undefined).noProgressMs?.limit).toBe(600_000);
  });
});
