import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, sharedHome, type CliResult, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
const use = (baton: TestBaton, dir: string): void => {
  t = baton;
  repo = dir;
};

/** One line on stderr, a non-zero exit, nothing on stdout. */
function expectOneLineError(result: CliResult, pattern: RegExp, code?: number): void {
  expect(result.code, result.stderr).not.toBe(0);
  if (code !== undefined) expect(result.code).toBe(code);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stdout).toBe('');
  // With --json the one line is a JSON error object carrying the same message.
  if (result.stderr.startsWith('{')) {
    const { error } = JSON.parse(result.stderr) as {
      error: { code: string; message: string; exitCode: number };
    };
    expect(error.exitCode).toBe(result.code);
    expect(`baton: ${error.message}`).toMatch(pattern);
  } else {
    expect(result.stderr).toMatch(pattern);
  }
}

/** Each value of the variable stops the supervisor from starting, so the command fails. */
async function expectStartRefused(variable: string, values: string[]): Promise<void> {
  for (const bad of values) {
    const result = await t.run(['ls'], { env: { [variable]: bad } });
    expect(result.code, `${variable}=${bad}`).toBe(6);
    // The reason itself, not only a pointer to the log.
    expect(result.stderr).toMatch(
      new RegExp(`^baton: The supervisor could not start: .*${variable}.*\\. Its log: `),
    );
  }
}

async function nothingCreated(): Promise<void> {
  expect(t.git(repo, 'branch', '--list', 'baton/*')).toBe('');
  expect(t.git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  const worktrees = join(t.home, 'worktrees', basename(repo));
  expect(existsSync(worktrees) ? readdirSync(worktrees) : []).toEqual([]);
  expect(await t.json<SessionView[]>(['ls'])).toEqual([]);
}

describe('bad input refused before anything is made, leaving nothing half-created', () => {
  // None of these makes anything, so they share one home and one supervisor; each has its own
  // repository, and `nothingCreated` finds the home as empty after every one of them.
  sharedHome(use);

  it.each([
    ['has space', /Invalid session name "has space": it contains whitespace/],
    ['a..b', /contains '\.\.'/],
    ['x;rm', /characters other than letters/],
    ['-rf', /starts with '-'/],
    ['n'.repeat(49), /longer than 48 characters/],
    ['ünïcode', /characters other than letters/],
  ])('rejects the session name %j', async (name, pattern) => {
    expectOneLineError(await t.run(['dispatch', 'x', '--name', name], { cwd: repo }), pattern, 2);
    await nothingCreated();
  });

  it.each([['no-such-branch'], ['--upload-pack=evil'], ['HEAD~5']])('rejects the base %j', async (base) => {
    expectOneLineError(await t.run(['dispatch', 'x', `--base=${base}`], { cwd: repo }), /base/i, 2);
    await nothingCreated();
  });

  it.each([
    ['{ not json', /is not valid JSON/],
    ['{"steps": [{"dance": 1}]}', /Invalid script at steps\.0/],
    ['{"steps": [{"sleep": -5}]}', /Invalid script at steps\.0/],
    ['[1, 2]', /Invalid script/],
  ])('rejects the malformed script %j', async (content, pattern) => {
    const file = join(t.root, `bad-${basename(repo)}.json`);
    writeFileSync(file, content);
    expectOneLineError(await t.run(['dispatch', 'x', '--script', file], { cwd: repo }), pattern, 2);
    await nothingCreated();
  });

  it('refuses to dispatch outside a git repository', async () => {
    const plain = join(t.root, `plain-${basename(repo)}`);
    mkdirSync(plain);
    expectOneLineError(await t.run(['dispatch', 'x'], { cwd: plain }), /is not inside a git repository/, 2);
  });

  it('refuses a repository without commits', async () => {
    const empty = join(t.root, `empty-${basename(repo)}`);
    mkdirSync(empty);
    t.git(empty, 'init', '--quiet');
    expectOneLineError(await t.run(['dispatch', 'x'], { cwd: empty }), /has no commits yet/, 2);
  });

  it('rejects unknown flags, agents and permission modes', async () => {
    expectOneLineError(
      await t.run(['dispatch', 'x', '--agent', 'gpt'], { cwd: repo }),
      /Unknown agent "gpt": Baton's agents are scripted, claude, codex/,
      2,
    );
    expectOneLineError(
      await t.run(['dispatch', 'x', '--agent', 'GPT!'], { cwd: repo }),
      /argument 'GPT!' is invalid\. "GPT!" is not an agent name/,
      2,
    );
    expectOneLineError(
      await t.run(['dispatch', 'x', '--permission-mode', 'yolo'], { cwd: repo }),
      /invalid/,
      2,
    );
    expectOneLineError(await t.run(['ls', '--bogus']), /unknown option '--bogus'/, 2);
    expectOneLineError(
      await t.run(['logs', 'x', '--after', '-3']),
      /--after must be a non-negative integer/,
      2,
    );
  });
});

describe('bad input gets a one-line error and leaves nothing half-created', () => {
  eachTest(use);

  it('rejects a name already in use in the project', async () => {
    await t.ok(['dispatch', 'x', '--name', 'dup', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    expectOneLineError(
      await t.run(['dispatch', 'y', '--name', 'dup'], { cwd: repo }),
      /already exists in this project/,
      4,
    );
  });

  it('starts from a given base', async () => {
    const first = t.git(repo, 'rev-parse', 'HEAD');
    writeFileSync(join(repo, 'later.txt'), 'later');
    t.git(repo, 'add', '.');
    t.git(repo, 'commit', '--quiet', '-m', 'later');
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'old', '--base', first, '--script', t.script([{ say: 'hi' }])],
      { cwd: repo },
    );
    expect(session.baseCommit).toBe(first);
    expect(existsSync(join(session.worktree, 'later.txt'))).toBe(false);
  });

  it('rejects a missing script file', async () => {
    expectOneLineError(
      await t.run(['dispatch', 'x', '--script', 'nope.json'], { cwd: repo }),
      /Cannot read script .*nope\.json: ENOENT/,
      2,
    );
  });

  it('reports unknown sessions and ambiguous prefixes', async () => {
    expectOneLineError(await t.run(['peek', 'ghost']), /No session matches "ghost"/, 3);
    const ids: string[] = [];
    for (let i = 0; ids.length < 2 || ids[0]![0] !== ids[1]![0]; i++) {
      // Dispatch until two ids share a first character (ids are random; 33 letters make this quick).
      const s = await t.json<SessionView>(
        ['dispatch', 'x', '--name', `s${i}`, '--script', t.script([{ say: 'hi' }])],
        { cwd: repo },
      );
      const clash = ids.find((id) => id[0] === s.id[0]);
      if (clash !== undefined) ids.splice(0, ids.length, clash, s.id);
      else ids.push(s.id);
    }
    expectOneLineError(await t.run(['peek', ids[0]![0]!]), /matches 2 sessions/, 3);
    const unique = await t.json<{ session: SessionView }>(['peek', ids[0]!.slice(0, 8)]);
    expect(unique.session.id).toBe(ids[0]);
  });

  it.each<[string[], string[]]>([
    [['peek'], []],
    [['logs', '--json'], []],
    [['reply'], ['more']],
    [['approve', '--reason', 'ok'], []],
    [['stop'], []],
    [['respawn'], []],
    [['rm'], []],
  ])('refuses a 100 KB session reference to %j before sending anything', async (command, rest) => {
    const ref = 'x'.repeat(100_000);
    const result = await t.run([...command, ref, ...rest]);
    expectOneLineError(
      result,
      /^baton: The session reference "x{24}…" is 100000 characters long; a session is named by its id, an id prefix or its name \(at most 200 characters\)/,
      2,
    );
    expect(result.stderr.length).toBeLessThan(400);
    // Refused before connecting: no supervisor was even started.
    expect(existsSync(join(t.home, 'supervisor.json'))).toBe(false);
  });

  it('refuses replies and approvals a session cannot take', async () => {
    await t.ok(['dispatch', 'x', '--name', 'r', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('r', 'ready_for_review');
    expectOneLineError(await t.run(['approve', 'r']), /not waiting for an approval/, 4);
    await t.ok(['done', 'r']);
    expectOneLineError(await t.run(['reply', 'r', 'more']), /Cannot reply to r: it is completed/, 4);
    expectOneLineError(await t.run(['stop', 'r']), /not running/, 4);
    expectOneLineError(await t.run(['respawn']), /Which session\?/, 2);
  });

  it('says so when the token is wrong', async () => {
    await t.ok(['daemon', 'start']);
    writeFileSync(join(t.home, 'token'), 'wrong-token-wrong-token\n');
    expectOneLineError(await t.run(['ls']), /rejected the token/, 5);
  });

  it('says so when the supervisor is not reachable', async () => {
    const down = await t.run(['daemon', 'status']);
    expect([down.code, down.stdout]).toEqual([6, expect.stringMatching(/not running/)]);
    await t.ok(['daemon', 'start']);
    const pid = t.supervisorPid();
    process.kill(pid, 'SIGKILL');
    const { watchExit } = await import('../support/process.js');
    await watchExit(pid);
    // A stale supervisor.json is detected and a new supervisor is started on demand.
    expect(await t.json<SessionView[]>(['ls'])).toEqual([]);
    expect(t.supervisorPid()).not.toBe(pid);
  });

  it('starts exactly one supervisor when several CLIs race', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => t.run(['ls', '--json'])));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse(await t.ok(['daemon', 'status', '--json']));
    expect(status.pid).toBe(t.supervisorPid());
    const { execFileSync } = await import('node:child_process');
    const supervisors = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('dist/bundle/supervisor.js'))
      .map((line) => Number(line.trim().split(/\s+/)[0]))
      .filter((pid) => {
        try {
          return execFileSync('cat', [`/proc/${pid}/environ`], { encoding: 'utf8' }).includes(
            `BATON_HOME=${t.home}`,
          );
        } catch {
          return false;
        }
      });
    expect(supervisors).toEqual([status.pid]);
  });

  it('rejects an invalid config file with a clear error', async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'config.json'), '{"maxConcurrent": "lots"}');
    const result = await t.run(['ls']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^baton: The supervisor could not start: .*config\.json: maxConcurrent/);
    expect(await t.ok(['daemon', 'logs'])).toMatch(/maxConcurrent/);
  });

  it('says why when BATON_HOME cannot be a folder, without a stack trace', async () => {
    const file = join(t.root, 'a-file');
    writeFileSync(file, 'not a folder');
    const result = await t.run(['ls'], { env: { BATON_HOME: join(file, 'home') } });
    expect([result.code, result.stderr]).toEqual([
      2,
      expect.stringMatching(
        /^baton: Baton's state folder .*a-file\/home \(BATON_HOME\) cannot be used: a file is in the way of that folder \(ENOTDIR\)\. Point BATON_HOME at a folder you own\.\n$/,
      ),
    ]);
  });

  it('says why a taken BATON_PORT stops the supervisor', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await t.run(['ls'], { env: { BATON_PORT: String(port) } });
      expect(result.code).toBe(6);
      expect(result.stderr).toMatch(new RegExp(`^baton: The supervisor could not start: .*${port}`));
    } finally {
      blocker.close();
    }
  });

  it('rejects a BATON_IDLE_HOST_SECONDS that is not a whole number of seconds, and a bad idleHostSeconds in the config file', async () => {
    await expectStartRefused('BATON_IDLE_HOST_SECONDS', ['soon', '-1', '1.5', '999999999']);
    expect(await t.ok(['daemon', 'logs'])).toContain(
      'BATON_IDLE_HOST_SECONDS must be a whole number of seconds from 0 (keep agents running) to 604800, got "999999999"',
    );
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'config.json'), '{"idleHostSeconds": -5}');
    expect((await t.run(['ls'])).code).not.toBe(0);
    expect(await t.ok(['daemon', 'logs'])).toMatch(/idleHostSeconds/);
  });

  it('rejects a store URL or machine name that is not one, and a bad heartbeat interval, naming the variable or key', async () => {
    await expectStartRefused('BATON_STORE', ['mysql://baton:hunter2@db/baton', 'db.internal/baton']);
    await expectStartRefused('BATON_MACHINE', ['has space', 'any']);
    const log = await t.ok(['daemon', 'logs']);
    expect(log).toContain('BATON_STORE is not a PostgreSQL URL (the scheme is mysql, not postgres)');
    expect(log).not.toContain('hunter2');
    // Checked before the store is dialled: the URL here leads nowhere.
    const heartbeat = await t.run(['ls'], {
      env: { BATON_STORE: 'postgres://baton@127.0.0.1:1/baton', BATON_CLUSTER_HEARTBEAT_MS: '10' },
    });
    expect(heartbeat.stderr).toMatch(
      /^baton: The supervisor could not start: BATON_CLUSTER_HEARTBEAT_MS must be a whole number of milliseconds, 50 or more; got "10"\. Its log: /,
    );
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'config.json'), '{"store": "postgres://baton@db.internal"}');
    expect((await t.run(['ls'])).stderr).toContain(
      `could not start: config.json's "store" is not a PostgreSQL URL (it names no database)`,
    );
  });

  it('rejects a BATON_PORT that is not a port, and one that is taken, with a clear error', async () => {
    await expectStartRefused('BATON_PORT', ['abc', '0', '70000', '80.5']);
    expect(await t.ok(['daemon', 'logs'])).toContain(
      'BATON_PORT must be a port number from 1 to 65535, got "80.5"',
    );
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const result = await t.run(['ls'], { env: { BATON_PORT: String(port) } });
      expect(result.code).not.toBe(0);
      expect(await t.ok(['daemon', 'logs'])).toContain('EADDRINUSE');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
