/**
 * Worktrees that are ready to work in (decision 59, "Setup runs in the session's host"), through the
 * real binary: copies, shared folders, setup commands while `preparing`, ports and variables per
 * session, teardown, and the repository's config refused with the bad key named.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, sharedHome, type TestBaton } from '../support/baton.js';

let t: TestBaton;
eachTest((baton) => (t = baton));

/** A repository with a .gitignore, a config, and (uncommitted, ignored) files in its main checkout. */
function repoWith(config: unknown, extra: Record<string, string> = {}, baton = t, name = 'app'): string {
  const repo = baton.repo(name, {
    'README.md': '# app\n',
    '.gitignore': 'node_modules/\n.env\n*.local\n',
    '.baton/config.json': JSON.stringify(config),
    ...extra,
  });
  writeFileSync(join(repo, '.env'), 'SECRET=main\n');
  return repo;
}

async function logEvents(ref: string): Promise<BatonEvent[]> {
  const out = await t.ok(['logs', ref, '--json']);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
}

function states(events: BatonEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'state.changed' ? [e.to] : []));
}

/** Blocks the files of a tree really take on disk, counting each inode once (as `du` does). */
function diskBlocks(dir: string, seen = new Set<number>()): number {
  let blocks = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const st = lstatSync(path);
    if (seen.has(st.ino)) continue;
    seen.add(st.ino);
    blocks += st.blocks;
    if (entry.isDirectory()) blocks += diskBlocks(path, seen);
  }
  return blocks;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('a worktree made ready while the session is preparing', () => {
  it('copies .env and .worktreeinclude files, shares node_modules without duplicating it, and runs setup with live progress', async () => {
    const repo = repoWith(
      {
        worktree: {
          copy: ['.env', 'missing.env'],
          share: ['node_modules'],
          setup: [
            'echo installing; test -f .env && echo "dep:$(cat node_modules/dep/index.js)" > setup-ran.txt',
          ],
        },
      },
      { '.worktreeinclude': 'config.local\n' },
    );
    writeFileSync(join(repo, 'config.local'), 'local=1\n');
    writeFileSync(join(repo, 'notes.local'), 'not named by .worktreeinclude\n');
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    // 2 MB of dependency, so a copy would show in the blocks on disk.
    writeFileSync(join(repo, 'node_modules', 'dep', 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;');
    const before = diskBlocks(join(repo, 'node_modules'));

    const script = t.script([{ run: 'cat .env > seen-env.txt' }]);
    await t.ok(['dispatch', 'use the env', '--name', 'ready', '--script', script], { cwd: repo });
    const done = await t.waitForState('ready', 'ready_for_review');
    const wt = done.worktree;
    expect(readFileSync(join(wt, 'seen-env.txt'), 'utf8')).toBe('SECRET=main\n');
    expect(readFileSync(join(wt, 'config.local'), 'utf8')).toBe('local=1\n');
    expect(existsSync(join(wt, 'notes.local'))).toBe(false);
    expect(readFileSync(join(wt, 'setup-ran.txt'), 'utf8')).toBe('dep:module.exports = 1;\n');
    // Shared, not copied: both trees together take what one did.
    const together = new Set<number>();
    const both =
      diskBlocks(join(repo, 'node_modules'), together) + diskBlocks(join(wt, 'node_modules'), together);
    expect(both).toBeLessThan(before * 1.2);
    // The main checkout is left as it was; the shared folder is not work git sees.
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
    expect(t.git(wt, 'status', '--porcelain', '--', 'node_modules')).toBe('');

    const events = await logEvents('ready');
    expect(states(events)).toEqual(['queued', 'preparing', 'starting', 'working', 'ready_for_review']);
    const steps = events.flatMap((e) => (e.type === 'setup.step' ? [`${e.kind} ${e.label}`] : []));
    expect(steps).toEqual([
      'copy .env',
      'copy missing.env',
      'copy .worktreeinclude',
      'share node_modules',
      expect.stringMatching(/^run echo installing/),
    ]);
    const output = events.flatMap((e) => (e.type === 'setup.output' ? [e.text] : [])).join('');
    expect(output).toContain('installing');
    expect(output).toMatch(/missing\.env is not in the main checkout; skipped/);
    expect(events.find((e) => e.type === 'setup.finished')).toMatchObject({ ok: true });
    expect(readFileSync(join(t.home, 'sessions', done.id, 'setup.log'), 'utf8')).toContain('installing');
  });

  it('fails the session when setup fails, with its output, and runs it again on respawn', async () => {
    const repo = repoWith({
      worktree: {
        setup: [
          'echo checking the flag; cat "$BATON_PROJECT_ROOT/flag" || { echo "no flag here" >&2; exit 3; }',
        ],
      },
    });
    await t.ok(['dispatch', 'x', '--name', 'broken', '--script', t.script([{ say: 'agent ran' }])], {
      cwd: repo,
    });
    const failed = await t.waitForState('broken', 'failed');
    expect(failed.reason).toMatchObject({ kind: 'error' });
    const message = (failed.reason as { message: string }).message;
    expect(message).toMatch(/setup command .* failed: exited with code 3/);
    expect(message).toContain('no flag here');
    expect(message).toContain('baton respawn');
    expect((await logEvents('broken')).some((e) => e.type === 'session.started')).toBe(false);

    writeFileSync(join(repo, 'flag'), 'up\n');
    await t.ok(['respawn', 'broken'], { cwd: repo });
    await t.waitForState('broken', 'ready_for_review');
    const events = await logEvents('broken');
    expect(
      events
        .filter((e) => e.type === 'setup.finished')
        .map((e) => (e.type === 'setup.finished' ? e.ok : undefined)),
    ).toEqual([false, true]);
    expect(events.some((e) => e.type === 'message.added' && e.text === 'agent ran')).toBe(true);
  });

  it('ends a setup command that hangs at the time limit and fails the session saying so', async () => {
    const repo = repoWith({
      worktree: {
        setup: [['node', '-e', 'console.log("hanging"); setInterval(() => {}, 1000)']],
        setupTimeoutSeconds: 1,
      },
    });
    await t.ok(['dispatch', 'x', '--name', 'hang', '--script', t.script([{ say: 'never' }])], { cwd: repo });
    const failed = await t.waitForState('hang', 'failed');
    expect((failed.reason as { message: string }).message).toMatch(
      /did not finish within 1 s \(worktree\.setupTimeoutSeconds\)/,
    );
    expect((failed.reason as { message: string }).message).toContain('hanging');
  });
});

describe('stopping a session while it prepares', () => {
  it('ends the running setup command before the session is recorded stopped', async () => {
    const repo = repoWith({
      worktree: {
        setup: [
          [
            'node',
            '-e',
            'require("fs").writeFileSync("setup.pid", String(process.pid)); console.log("started"); setInterval(() => {}, 1000)',
          ],
        ],
      },
    });
    await t.ok(['dispatch', 'x', '--name', 'halt', '--script', t.script([{ say: 'x' }])], { cwd: repo });
    await t.waitForEvent('halt', (e) => e.type === 'setup.output' && e.text.includes('started'));
    await t.ok(['stop', 'halt'], { cwd: repo });
    const stopped = await t.waitForState('halt', 'stopped');
    const pid = Number(readFileSync(join(stopped.worktree, 'setup.pid'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    expect(states(await logEvents('halt'))).toEqual(['queued', 'preparing', 'stopped']);
  });
});

describe('ports and variables per session', () => {
  it('leases unique, bindable ports to 10 concurrent sessions, exports them with templated variables, and shows them in baton env', async () => {
    const repo = repoWith({
      ports: { count: 2, env: ['PORT', 'API_PORT'] },
      env: { DATABASE_URL: 'postgres://localhost:${PORT}/app_${SESSION}' },
      worktree: { setup: ['printf "%s %s %s" "$PORT" "$API_PORT" "$DATABASE_URL" > ports.txt'] },
    });
    const names = Array.from({ length: 10 }, (_, i) => `port-${i}`);
    await Promise.all(
      names.map((name) =>
        t.ok(['dispatch', 'serve', '--name', name, '--script', t.script([{ say: 'ok' }])], { cwd: repo }),
      ),
    );
    const seen: number[] = [];
    for (const name of names) {
      const done = await t.waitForState(name, 'ready_for_review', 60_000);
      const [port, api, url] = readFileSync(join(done.worktree, 'ports.txt'), 'utf8').split(' ');
      expect(url).toBe(`postgres://localhost:${port}/app_${name.replace('-', '_')}`);
      seen.push(Number(port), Number(api));
      // Shown with the session (the card on the board reads the same view).
      expect(done.ports).toEqual([
        { name: 'PORT', port: Number(port) },
        { name: 'API_PORT', port: Number(api) },
      ]);
    }
    expect(new Set(seen).size).toBe(20);
    for (const port of seen) expect(await bindable(port)).toBe(true);

    const env = JSON.parse(await t.ok(['env', 'port-0', '--json'], { cwd: repo })) as {
      ports: { name: string; port: number }[];
      env: Record<string, string>;
    };
    expect(env.ports.map((p) => p.port)).toEqual(seen.slice(0, 2));
    expect(env.env.DATABASE_URL).toBe(`postgres://localhost:${seen[0]}/app_port_0`);
    expect(await t.ok(['env', 'port-0'], { cwd: repo })).toMatch(/ports: PORT=\d+ API_PORT=\d+/);

    // A completed session gives its ports back; the others keep theirs.
    await t.ok(['done', 'port-1'], { cwd: repo });
    const after = await t.client(repo).call('GET /api/sessions/:ref', { params: { ref: 'port-1' } });
    expect(after.session.ports).toBeUndefined();
    const still = await t.client(repo).call('GET /api/sessions/:ref', { params: { ref: 'port-2' } });
    expect(still.session.ports).toHaveLength(2);
  });

  it('refuses a dispatch when no port is free in the range, leaving nothing behind', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const repo = repoWith({ ports: { count: 1, range: [port, port] } });
      const result = await t.run(
        ['dispatch', 'x', '--name', 'noports', '--script', t.script([{ say: 'x' }])],
        { cwd: repo },
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/No 1 free port\(s\) in/);
      expect(existsSync(join(t.home, 'worktrees', 'app', 'noports'))).toBe(false);
      expect(t.git(repo, 'branch', '--list', 'baton/noports')).toBe('');
    } finally {
      blocker.close();
    }
  });
});

describe("the repository's config", () => {
  // Refused before anything is made: these share one home and supervisor (decision 422, "Tests
  // that leave the home as they found it may share one supervisor"), each with a repository of its own.
  let shared: TestBaton;
  let count = 0;
  sharedHome((baton) => (shared = baton));

  it.each([
    [{ worktree: { setpu: ['x'] } }, /setpu/],
    [
      { worktree: { copy: ['../outside.env'] } },
      /worktree\.copy\[0\] "\.\.\/outside\.env" is outside the repository/,
    ],
    [{ worktree: { share: ['src'] } }, /worktree\.share\[0\] "src" is not ignored by git/],
    [{ env: { DB: 'app_${NOPE}' } }, /env\.DB uses \$\{NOPE\}/],
    [{ agents: { claude: { settingSources: ['everything'] } } }, /agents\.claude\.settingSources/],
  ])('refuses %j, naming what is wrong, and makes nothing', async (config, message) => {
    count += 1;
    const repo = repoWith(config, { 'src/a.txt': 'a\n' }, shared, `app-${count}`);
    const result = await shared.run(
      ['dispatch', 'x', '--name', 'bad', '--script', shared.script([{ say: 'x' }])],
      { cwd: repo },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(shared.home, 'worktrees', `app-${count}`, 'bad'))).toBe(false);
    expect(existsSync(join(shared.home, 'worktrees'))).toBe(false);
    expect(shared.git(repo, 'branch', '--list', 'baton/bad')).toBe('');
  });
});

describe('teardown', () => {
  it('runs the teardown commands in the worktree before rm removes it, and keeps their output', async () => {
    const repo = repoWith({
      worktree: { teardown: ['echo "down $BATON_SESSION_NAME" > "$BATON_PROJECT_ROOT/../teardown.txt"'] },
    });
    await t.ok(['dispatch', 'x', '--name', 'td', '--script', t.script([{ say: 'x' }])], { cwd: repo });
    const done = await t.waitForState('td', 'ready_for_review');
    await t.ok(['rm', 'td'], { cwd: repo });
    expect(readFileSync(join(repo, '..', 'teardown.txt'), 'utf8')).toBe('down td\n');
    expect(existsSync(done.worktree)).toBe(false);
    expect(statSync(join(t.home, 'sessions', done.id, 'teardown.log')).size).toBeGreaterThan(0);
  });
  // The command is the trusted config's; the script it runs is in the worktree, where the agent
  // rewrote it: it runs in the session's sandbox, and the user's token stays out of its reach.
  it('runs them in the session’s sandbox: a teardown script the agent rewrote cannot read the user’s token', async () => {
    const repo = repoWith({ worktree: { teardown: ['sh down.sh'] } }, { 'down.sh': 'echo down\n' });
    const stolen = join(t.root, 'stolen.txt');
    const rewritten = `cat '${join(t.home, 'token')}' > '${stolen}' 2>&1; echo ran >> '${stolen}'\n`;
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'tdx',
        '--script',
        t.script([{ write: { path: 'down.sh', content: rewritten } }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('tdx', 'ready_for_review');
    await t.ok(['rm', 'tdx', '--force'], { cwd: repo });
    const seen = readFileSync(stolen, 'utf8');
    expect(seen).toContain('ran');
    expect(seen).toContain('No such file or directory');
    expect(seen).not.toContain(readFileSync(join(t.home, 'token'), 'utf8').trim());
  });
});

describe('carrying the main checkout’s changes', () => {
  it('brings tracked and untracked changes into the new worktree and leaves the main checkout exactly as it was', async () => {
    const repo = t.repo('carry', { 'README.md': '# carry\n', 'src/a.txt': 'a\n', 'gone.txt': 'bye\n' });
    writeFileSync(join(repo, 'README.md'), '# carry, edited\n');
    writeFileSync(join(repo, 'new.txt'), 'untracked\n');
    t.git(repo, 'rm', '--quiet', 'gone.txt');
    writeFileSync(join(repo, 'src/a.txt'), 'staged\n');
    t.git(repo, 'add', 'src/a.txt');
    const statusBefore = t.git(repo, 'status', '--porcelain');
    const diffBefore = t.git(repo, 'diff', 'HEAD');

    const out = await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'carried',
        '--carry-changes',
        '--script',
        t.script([{ run: 'cat README.md new.txt src/a.txt > seen.txt' }]),
      ],
      { cwd: repo },
    );
    expect(out).toMatch(/carried: {2}4 uncommitted file\(s\) from the main checkout/);
    const done = await t.waitForState('carried', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'seen.txt'), 'utf8')).toBe(
      '# carry, edited\nuntracked\nstaged\n',
    );
    expect(existsSync(join(done.worktree, 'gone.txt'))).toBe(false);
    // Uncommitted in the worktree too, on the session's branch at the main checkout's HEAD.
    expect(t.git(done.worktree, 'rev-parse', 'HEAD')).toBe(t.git(repo, 'rev-parse', 'HEAD'));
    expect(
      t
        .git(done.worktree, 'status', '--porcelain')
        .split('\n')
        .map((l) => l.trim())
        .sort(),
    ).toEqual(['?? new.txt', '?? seen.txt', 'D gone.txt', 'M README.md', 'M src/a.txt']);
    expect(t.git(repo, 'status', '--porcelain')).toBe(statusBefore);
    expect(t.git(repo, 'diff', 'HEAD')).toBe(diffBefore);
  });

  it('mentions a dirty main checkout when its changes are not carried', async () => {
    const repo = t.repo('dirty', { 'README.md': '# dirty\n' });
    writeFileSync(join(repo, 'README.md'), '# dirty, edited\n');
    const out = await t.ok(['dispatch', 'x', '--name', 'plain', '--script', t.script([{ say: 'x' }])], {
      cwd: repo,
    });
    expect(out).toMatch(
      /the main checkout has 1 uncommitted file\(s\), not in this session \(--carry-changes brings them\)/,
    );
    const done = await t.waitForState('plain', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'README.md'), 'utf8')).toBe('# dirty\n');
  });
});

describe('disk and cleanup', () => {
  it('gc --dry-run changes nothing; gc archives the oldest idle worktree past the cap, and restore brings its work back byte for byte', async () => {
    const repo = repoWith({ cleanup: { maxWorktrees: 1 } });
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'older',
        '--script',
        t.script([
          { write: { path: 'kept.txt', content: 'uncommitted\n' } },
          { run: ['git', 'add', 'kept.txt'] },
          { run: ['git', 'commit', '-qm', 'committed work'] },
          { write: { path: 'notes.txt', content: 'not committed\n' } },
        ]),
      ],
      { cwd: repo },
    );
    const older = await t.waitForState('older', 'ready_for_review');
    writeFileSync(join(older.worktree, 'blob.bin'), bytes);
    writeFileSync(join(older.worktree, 'README.md'), '# edited, uncommitted\n');
    await t.ok(['dispatch', 'x', '--name', 'newer', '--script', t.script([{ say: 'x' }])], { cwd: repo });
    await t.waitForState('newer', 'ready_for_review');

    const du = JSON.parse(await t.ok(['du', '--json'], { cwd: repo })) as {
      worktrees: { session: string; ownedBytes: number }[];
    };
    expect(du.worktrees.map((w) => w.session).sort()).toEqual(['newer', 'older']);
    expect(du.worktrees.every((w) => w.ownedBytes > 0)).toBe(true);

    const dry = await t.ok(['gc', '--dry-run'], { cwd: repo });
    expect(dry).toMatch(/would archive older: 2 worktrees, over cleanup\.maxWorktrees 1/);
    expect(existsSync(older.worktree)).toBe(true);

    const out = await t.ok(['gc'], { cwd: repo });
    expect(out).toMatch(/archived older: .* → uncommitted work in refs\/baton\/snapshots\/older/);
    expect(existsSync(older.worktree)).toBe(false);

    expect(await t.ok(['snapshots'], { cwd: repo })).toMatch(
      /^older .* baton: uncommitted work of session older/m,
    );
    // A name in use is refused, and nothing is made.
    const taken = await t.run(['restore', 'older', '--as', 'newer'], { cwd: repo });
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/A session named "newer" exists/);

    const restored = JSON.parse(await t.ok(['restore', 'older', '--json'], { cwd: repo })) as {
      worktree: string;
      branch: string;
    };
    expect(restored.branch).toBe('baton/older');
    expect(readFileSync(join(restored.worktree, 'blob.bin')).equals(bytes)).toBe(true);
    expect(readFileSync(join(restored.worktree, 'README.md'), 'utf8')).toBe('# edited, uncommitted\n');
    expect(readFileSync(join(restored.worktree, 'notes.txt'), 'utf8')).toBe('not committed\n');
    expect(t.git(restored.worktree, 'log', '-1', '--format=%s')).toBe('committed work');
    expect(
      t
        .git(restored.worktree, 'status', '--porcelain')
        .split('\n')
        .map((l) => l.trim())
        .sort(),
    ).toEqual(['?? blob.bin', '?? notes.txt', 'M README.md']);
    // The snapshot is kept after a restore.
    expect(t.git(repo, 'for-each-ref', 'refs/baton/snapshots/')).toMatch(/refs\/baton\/snapshots\/older/);
  });

  it('refuses gc in a repository without a cleanup policy', async () => {
    const repo = repoWith({});
    const result = await t.run(['gc'], { cwd: repo });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no cleanup policy; set cleanup\.idleHours/);
  });
});

describe('in-place sessions and existing branches', () => {
  it('works in the main checkout itself, holds it against a second in-place session, and rm leaves the checkout and its branch as they are', async () => {
    const repo = t.repo('inplace', { 'README.md': '# in place\n' });
    const branchBefore = t.git(repo, 'branch', '--show-current');
    const headBefore = t.git(repo, 'rev-parse', 'HEAD');
    await t.ok(
      [
        'dispatch',
        'x',
        '--in-place',
        '--name',
        'here',
        '--script',
        t.script([{ write: { path: 'made-here.txt', content: 'in place\n' } }]),
      ],
      { cwd: repo },
    );
    const done = await t.waitForState('here', 'ready_for_review');
    expect(done.worktree).toBe(repo);
    expect(readFileSync(join(repo, 'made-here.txt'), 'utf8')).toBe('in place\n');

    const second = await t.run(
      ['dispatch', 'y', '--in-place', '--name', 'there', '--script', t.script([{ say: 'x' }])],
      { cwd: repo },
    );
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(/Session here is working in place .* one in-place session at a time/);
    // A worktree session alongside is fine.
    await t.ok(['dispatch', 'z', '--name', 'beside', '--script', t.script([{ say: 'x' }])], { cwd: repo });

    await t.ok(['rm', 'here'], { cwd: repo });
    expect(readFileSync(join(repo, 'made-here.txt'), 'utf8')).toBe('in place\n');
    expect(t.git(repo, 'branch', '--show-current')).toBe(branchBefore);
    expect(t.git(repo, 'rev-parse', `refs/heads/${branchBefore}`)).toBe(headBefore);
    // Released: another in-place session may start.
    await t.ok(['dispatch', 'y', '--in-place', '--name', 'there', '--script', t.script([{ say: 'x' }])], {
      cwd: repo,
    });
  });

  it('continues an existing branch in a new worktree and never deletes that branch on rm', async () => {
    const repo = t.repo('branches', { 'README.md': '# branches\n' });
    t.git(repo, 'checkout', '--quiet', '-b', 'feature/x');
    writeFileSync(join(repo, 'feature.txt'), 'feature work\n');
    t.git(repo, 'add', 'feature.txt');
    t.git(repo, 'commit', '--quiet', '-m', 'feature work');
    const tip = t.git(repo, 'rev-parse', 'HEAD');
    t.git(repo, 'checkout', '--quiet', '-');

    await t.ok(
      [
        'dispatch',
        'x',
        '--branch',
        'feature/x',
        '--script',
        t.script([{ run: 'cat feature.txt > seen.txt' }]),
      ],
      { cwd: repo },
    );
    const done = await t.waitForState('feature-x', 'ready_for_review');
    expect(done.branch).toBe('feature/x');
    expect(readFileSync(join(done.worktree, 'seen.txt'), 'utf8')).toBe('feature work\n');
    await t.ok(['rm', 'feature-x'], { cwd: repo });
    expect(t.git(repo, 'rev-parse', 'refs/heads/feature/x')).toBe(tip);

    const missing = await t.run(
      ['dispatch', 'x', '--branch', 'no/such', '--script', t.script([{ say: 'x' }])],
      { cwd: repo },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No branch "no\/such"/);
  });
});
