import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { BIN, eachTest, sharedHome, type TestBaton } from '../support/baton.js';
import { exitOf, OutputWatcher } from '../support/process.js';

let t: TestBaton;
let repo: string;
// The tests share one home and supervisor (decisions 422 and 433): each works in a repository of
// its own, under session names no other test uses, and lists only that repository's sessions
// (`ls --here`). The test that stops the supervisor has its own.
sharedHome((baton, dir) => ((t = baton), (repo = dir)));

describe('commands do what their help says', () => {
  it('interrupt ends the turn and leaves the session waiting for a reply, which starts the next turn', async () => {
    const script = t.script([{ say: 'long job' }, { sleep: 60_000 }], {
      onReply: [{ say: 'steered: {{reply}}' }],
    });
    await t.ok(['dispatch', 'x', '--name', 'int', '--script', script], { cwd: repo });
    await t.waitForEvent('int', (e) => e.type === 'message.added' && e.text === 'long job');
    await t.ok(['interrupt', 'int'], { cwd: repo });
    const waiting = await t.waitForState('int', 'needs_input');
    expect(waiting.reason).toEqual({
      kind: 'note',
      message: 'turn interrupted by you; reply to steer the agent',
    });
    await t.ok(['reply', 'int', 'do the short one'], { cwd: repo });
    await t.waitForEvent('int', (e) => e.type === 'message.added' && e.text === 'steered: do the short one');
    await t.waitForState('int', 'ready_for_review');
  });

  it('respawn refuses a session that is ready with its agent up; reply and approve say what to do instead', async () => {
    await t.ok(['dispatch', 'x', '--name', 'ready', '--script', t.script([{ say: 'done' }])], { cwd: repo });
    await t.waitForState('ready', 'ready_for_review');
    const respawn = await t.run(['respawn', 'ready'], { cwd: repo });
    expect([respawn.code, respawn.stderr]).toEqual([
      4,
      'baton: Session ready is ready for review and its agent is still up: there is nothing to respawn. Send it more work with: baton reply ready "…"\n',
    ]);
    const log = await t.ok(['logs', 'ready', '--json'], { cwd: repo });
    expect(log).toContain('"to":"ready_for_review"');
    expect(log).not.toContain('"to":"stopped"');

    await t.ok(['done', 'ready'], { cwd: repo });
    const reply = await t.run(['reply', 'ready', 'more'], { cwd: repo });
    expect(reply.stderr).toBe(
      'baton: Cannot reply to ready: it is completed (marked done); to go on with the work, dispatch a new session.\n',
    );

    await t.ok(['dispatch', 'x', '--name', 'asks', '--script', t.script([{ ask: 'which file?' }])], {
      cwd: repo,
    });
    await t.waitForState('asks', 'needs_input');
    const approve = await t.run(['approve', 'asks'], { cwd: repo });
    expect(approve.stderr).toBe(
      'baton: Session asks is not waiting for an approval; it is waiting for an answer: baton reply asks "…".\n',
    );
  });
});

describe('reading a session', () => {
  it('path prints the worktree; logs -n tails, --full prints whole output, -f ends when the session completes', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'out',
        '--script',
        t.script([{ run: ['printf', '%s', long] }, { say: 'done' }]),
      ],
      { cwd: repo },
    );
    const done = await t.waitForState('out', 'ready_for_review');
    expect(await t.ok(['path', 'out'], { cwd: repo })).toBe(`${done.worktree}\n`);

    const tail = (await t.ok(['logs', 'out', '-n', '2'], { cwd: repo })).trim().split('\n');
    expect(tail.map((l) => Number(l.trim().split(' ')[0]))).toEqual([done.lastSeq - 1, done.lastSeq]);
    const full = await t.ok(['logs', 'out', '--full'], { cwd: repo });
    expect(full).toContain('│ line 29');
    expect(await t.ok(['logs', 'out'], { cwd: repo })).not.toContain('line 29');
    const bad = await t.run(['logs', 'out', '-n', 'abc'], { cwd: repo });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'baton: --lines must be a whole number of events, 1 or more, got "abc"\n',
    ]);

    const follower = t.spawn(['logs', 'out', '-f'], { cwd: repo });
    const out = new OutputWatcher(follower.stdout!);
    await out.waitFor(/turn\.completed/);
    await t.ok(['done', 'out'], { cwd: repo });
    expect(await exitOf(follower)).toBe(0);
  });

  it('errors are one JSON object with --json, and daemon logs reads as text', async () => {
    const missing = await t.run(['peek', 'nobody', '--json'], { cwd: repo });
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr)).toEqual({
      error: expect.objectContaining({ code: 'not_found', exitCode: 3 }),
    });
    const usage = await t.run(['ls', '--bogus', '--json'], { cwd: repo });
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr).error.message).toContain('--bogus');

    const text = await t.ok(['daemon', 'logs', '-n', '3']);
    expect(text).toMatch(/^\d\d:\d\d:\d\d (info |warn |error|debug) \S+/m);
    expect(text).not.toContain('{"time"');
    expect((await t.run(['daemon', 'logs', '-n', 'abc'])).code).toBe(2);

    // -f follows: new records show as readable lines (a dispatch logs some).
    const follower = t.spawn(['daemon', 'logs', '-f', '-n', '1']);
    const out = new OutputWatcher(follower.stdout!);
    await out.waitFor(/\n/);
    const before = out.all.split('\n').length;
    await t.ok(['dispatch', 'x', '--name', 'logged', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('logged', 'ready_for_review');
    await out.waitFor(/^\d\d:\d\d:\d\d \S+ +\S+ +.+$/m);
    expect(out.all.split('\n').length).toBeGreaterThan(before);
    follower.kill('SIGINT');
    expect(await exitOf(follower)).toBe(0);
    expect(out.all).not.toContain('{"time"');
  });

  it('ui says so when the opener finds no browser', async () => {
    const opener = join(t.root, 'no-browser');
    writeFileSync(opener, '#!/bin/sh\necho "no method available for opening" >&2\nexit 3\n');
    chmodSync(opener, 0o755);
    const result = await t.run(['ui'], { cwd: repo, env: { BATON_OPENER: opener } });
    expect(result.stdout).toMatch(
      /^Could not open a browser here; open the dashboard yourself:\n {2}http:\/\/127\.0\.0\.1:\d+\/login\?code=/,
    );
    const session = await t.json<SessionView[]>(['ls', '--here', '--json'], { cwd: repo });
    expect(session).toEqual([]);
  });
});

describe('ls in a terminal', () => {
  it('fits 80 columns (COLUMNS, or a pseudo-terminal set to 80), colours the groups on a terminal and not in a pipe', async () => {
    const question =
      'Should the watcher keep the old onChange signature, given three callers outside src/ depend on it and the new one batches events?';
    await t.ok(
      ['dispatch', 'x', '--name', 'a-long-but-whole-session-name', '--script', t.script([{ ask: question }])],
      { cwd: repo },
    );
    await t.waitForState('a-long-but-whole-session-name', 'needs_input');

    const piped = await t.run(['ls', '--here'], { cwd: repo, env: { COLUMNS: '80' } });
    for (const line of piped.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(piped.stdout).toContain('a-long-but-whole-session-name');
    expect(piped.stdout).not.toContain('\x1b[');
    expect(piped.stdout).toMatch(/^ {2}ID {6}NAME/);

    // `script` gives the CLI a real terminal, 80 columns wide.
    const { execFileSync } = await import('node:child_process');
    const command = `stty cols 80 rows 40; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ls --here`;
    const tty = execFileSync('script', ['-qec', command, '/dev/null'], {
      cwd: repo,
      env: { ...t.env, TERM: 'xterm' },
      encoding: 'utf8',
    });
    expect(tty).toContain('\x1b[1;33mNeeds input (1)\x1b[0m');
    const visible = tty
      .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
      .replace(/\r/g, '')
      .trimEnd()
      .split('\n');
    for (const line of visible) expect(line.length).toBeLessThanOrEqual(80);
    expect(visible.join('\n')).toContain('a-long-but-whole-session-name');
  });
});

describe('shell completion', () => {
  it('completes commands, options and live session names in bash, and refuses an unknown shell', async () => {
    await t.ok(['dispatch', 'x', '--name', 'flaky-watcher', '--script', t.script([{ say: 'hi' }])], {
      cwd: repo,
    });
    await t.waitForState('flaky-watcher', 'ready_for_review');
    const script = join(t.root, 'baton-completion.bash');
    writeFileSync(script, await t.ok(['completion', 'bash']));
    const bin = join(t.root, 'bin');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'baton'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
    );
    chmodSync(join(bin, 'baton'), 0o755);
    const complete = async (...words: string[]): Promise<string[]> => {
      const { execFileSync } = await import('node:child_process');
      const array = words.map((w) => `'${w}'`).join(' ');
      const out = execFileSync(
        'bash',
        [
          '-c',
          `source ${JSON.stringify(script)}; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _baton; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        {
          cwd: repo,
          env: { ...t.env, PATH: `${bin}:${t.env.PATH ?? ''}` },
          encoding: 'utf8',
        },
      );
      return out.split('\n').filter(Boolean);
    };
    expect(await complete('baton', 'pe')).toEqual(['peek']);
    expect(await complete('baton', 'wa')).toEqual(['wait', 'watch']);
    expect(await complete('baton', 'routine', 'hi')).toEqual(['history']);
    expect((await complete('baton', 'logs', '--f')).sort()).toEqual(['--follow', '--full']);
    expect(await complete('baton', 'peek', 'fla')).toEqual(['flaky-watcher']);
    expect(await complete('baton', 'daemon', 'st')).toEqual(
      expect.arrayContaining(['status', 'start', 'stop']),
    );

    for (const shell of ['zsh', 'fish']) expect(await t.ok(['completion', shell])).toContain('baton');
    expect((await t.run(['completion', 'tcsh'])).stderr).toBe(
      'baton: No completion for "tcsh"; shells: bash, zsh, fish\n',
    );
  });
});

describe('daemon stop', () => {
  eachTest((baton, dir) => ((t = baton), (repo = dir)));

  it('stays stopped while a logs -f runs elsewhere: the follower ends and says why', async () => {
    await t.ok(
      ['dispatch', 'x', '--name', 'long', '--script', t.script([{ say: 'busy' }, { sleep: 60_000 }])],
      { cwd: repo },
    );
    await t.waitForState('long', 'working');
    const follower = t.spawn(['logs', 'long', '-f'], { cwd: repo });
    const out = new OutputWatcher(follower.stdout!);
    const err = new OutputWatcher(follower.stderr!);
    await out.waitFor(/message\.added/);
    await t.ok(['daemon', 'stop']);
    expect(await exitOf(follower)).toBe(0);
    await err.waitFor(/The supervisor was stopped; stopped following/);
    expect((await t.run(['daemon', 'status'])).code).toBe(6);
  });
});

describe('attach', () => {
  it('shows only the last 20 events (--all: everything), asks only the open question, and refuses a completed session', async () => {
    const says = Array.from({ length: 30 }, (_, i) => ({ say: `line ${i}` }));
    await t.ok(
      ['dispatch', 'x', '--name', 'chatty', '--script', t.script([...says, { ask: 'which one?' }])],
      { cwd: repo },
    );
    const waiting = await t.waitForState('chatty', 'needs_input');

    const attach = t.spawn(['attach', 'chatty'], { cwd: repo });
    const out = new OutputWatcher(attach.stdout!);
    await out.waitFor(/>>> chatty needs input: which one\?/);
    attach.kill('SIGINT');
    expect(await exitOf(attach)).toBe(0);
    const shown = out.all;
    expect(shown).toContain(`(the last 20 events; --all replays everything)`);
    expect(shown).not.toMatch(/^ {3}1 /m);
    expect(shown).toMatch(new RegExp(`^ *${waiting.lastSeq} `, 'm'));
    expect(shown.match(/>>> chatty needs input/g)).toHaveLength(1);

    const all = t.spawn(['attach', 'chatty', '--all'], { cwd: repo });
    const allOut = new OutputWatcher(all.stdout!);
    await allOut.waitFor(/>>> chatty needs input/);
    all.kill('SIGINT');
    await exitOf(all);
    expect(allOut.all).toMatch(/^ {3}1 /m);

    await t.ok(['done', 'chatty'], { cwd: repo });
    expect(await t.ok(['attach', 'chatty'], { cwd: repo })).toBe(
      'chatty is completed; there is nothing to attach to. Its transcript: baton logs chatty\n',
    );
  });
});
