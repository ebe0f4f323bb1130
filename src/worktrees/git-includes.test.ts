/**
 * An include of the repository's own config that names a FIFO can answer the guard's listing
 * and the command differently: the call is refused (decision 468). A regular file is still
 * included, its program-naming settings still undone (decision 200).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitOut } from './git.js';
import { guardedEnvSync } from './git-guard.js';
import { includeTargets } from './git-includes.js';

let dir: string;
let repo: string;
let marker: string;
let servers: ChildProcess[];

const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
const IDENTITY = ['-c', 'user.name=b', '-c', 'user.email=b@b'];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-git-includes-'));
  repo = join(dir, 'repo');
  marker = join(dir, 'driver-ran');
  servers = [];
  mkdirSync(repo);
  sh('init', '-q', '-b', 'main');
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  writeFileSync(join(repo, 'a.txt'), `${lines.join('\n')}\n`);
  sh('add', '-A');
  sh(...IDENTITY, 'commit', '-qm', 'base');
  // Two branches editing a.txt far apart: a merge of them asks a.txt's merge driver.
  for (const [branch, at] of [
    ['one', 2],
    ['two', 17],
  ] as const) {
    sh('checkout', '-q', '-b', branch, 'main');
    writeFileSync(join(repo, 'a.txt'), `${lines.map((l, i) => (i === at ? branch : l)).join('\n')}\n`);
    sh(...IDENTITY, 'commit', '-qam', branch);
  }
  sh('checkout', '-q', 'main');
  // Attributes alone run nothing: a driver the config does not define is git's own text merge.
  mkdirSync(join(repo, '.git', 'info'), { recursive: true });
  writeFileSync(join(repo, '.git', 'info', 'attributes'), 'a.txt merge=evil\n');
});

afterEach(async () => {
  for (const server of servers) {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
      await once(server, 'exit');
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const DRIVER = () => `[merge "evil"]\n\tdriver = touch '${marker}'\n`;
const mergeTree = () => git(repo, ['merge-tree', '--write-tree', 'one', 'two'], { okExitCodes: [1] });

/**
 * The agent's side of a FIFO it made: each reader that is not `git config` (Baton's listing) is
 * told `answer`, the listing nothing (or every reader `answer`, with `toAll`). It knows its
 * readers from `/proc`, as any process of the user's can.
 */
function serve(fifo: string, answer: string, toAll = false): void {
  execFileSync('mkfifo', [fifo]);
  const script = join(dir, `serve-${servers.length}.cjs`);
  writeFileSync(
    script,
    `const fs = require('node:fs');
const [fifo, answer, toAll] = process.argv.slice(2);
const real = fs.realpathSync(fifo);
const pause = new Int32Array(new SharedArrayBuffer(4));
function readers() {
  const found = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const fds = fs.readdirSync('/proc/' + pid + '/fd');
      if (fds.some((fd) => { try { return fs.readlinkSync('/proc/' + pid + '/fd/' + fd) === real; } catch { return false; } }))
        found.push(fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0'));
    } catch {}
  }
  return found;
}
for (;;) {
  const w = fs.openSync(fifo, 'w');
  let who = [];
  for (let i = 0; toAll !== 'all' && i < 2000 && who.length === 0; i++) {
    who = readers();
    if (who.length === 0) Atomics.wait(pause, 0, 0, 1);
  }
  if (toAll === 'all' || (who.length > 0 && !who.some((argv) => argv.includes('config'))))
    fs.writeSync(w, answer);
  fs.closeSync(w);
}
`,
  );
  servers.push(spawn(process.execPath, [script, fifo, answer, toAll ? 'all' : ''], { stdio: 'ignore' }));
}

describe('an include of the repository config that names something other than a regular file', () => {
  it('a FIFO that tells the listing nothing and the merge a driver: the call is refused and the driver never runs', async () => {
    const fifo = join(dir, 'agent.cfg');
    serve(fifo, DRIVER());
    sh('config', 'include.path', fifo);

    const refused = await mergeTree().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(existsSync(marker)).toBe(false);
    expect(String(refused)).toContain(
      `the repository's setting include.path (in .git/config) includes ${fifo}, which is a FIFO, not a regular file`,
    );

    // The danger is real: plain git in the same repository is told the driver and runs it.
    execFileSync('git', ['merge-tree', '--write-tree', 'one', 'two'], { cwd: repo, stdio: 'ignore' });
    expect(existsSync(marker)).toBe(true);
  });

  it('is found as git finds it: includeIf, relative to the including file, nested in a regular include, ~ expanded; the checkpoint refuses too', async () => {
    // `.git/config` includes a regular file whose own include (relative to its folder) is a FIFO.
    mkdirSync(join(repo, '.git', 'agent'));
    writeFileSync(join(repo, '.git', 'agent', 'outer.cfg'), '[includeIf "gitdir:/"]\n\tpath = inner.cfg\n');
    const inner = join(repo, '.git', 'agent', 'inner.cfg');
    serve(inner, DRIVER());
    sh('config', 'include.path', 'agent/outer.cfg');
    await expect(mergeTree()).rejects.toThrow(
      `the repository's setting includeif.gitdir:/.path (in .git/agent/outer.cfg) includes ${inner}, which is a FIFO`,
    );

    // `~/` is the listing's HOME; the synchronous guard (a checkpoint's) refuses the same way.
    sh('config', '--unset', 'include.path');
    const home = join(dir, 'home');
    mkdirSync(home);
    serve(join(home, 'agent.cfg'), DRIVER());
    sh('config', 'includeIf.onbranch:main.path', '~/agent.cfg');
    expect(() => guardedEnvSync(repo, ['stash', 'create'], { ...process.env, HOME: home })).toThrow(
      `includes ${join(home, 'agent.cfg')}, which is a FIFO, not a regular file`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('a regular file the repository config includes is still read, and its driver still undone', async () => {
    mkdirSync(join(repo, '.git', 'extra'));
    writeFileSync(
      join(repo, '.git', 'extra', 'more.cfg'),
      `[user]\n\tname = Included\n\temail = i@i\n${DRIVER()}`,
    );
    writeFileSync(join(repo, '.git', 'extra.cfg'), '[include]\n\tpath = extra/more.cfg\n');
    sh('config', 'include.path', 'extra.cfg');

    const merged = await mergeTree();
    // The driver is undone to `false`: a.txt is reported conflicted and nothing ran.
    expect(merged.exitCode).toBe(1);
    expect(existsSync(marker)).toBe(false);
    // A setting of the included file is in force for the command.
    await git(repo, ['commit', '-q', '--allow-empty', '-m', 'with included identity']);
    expect(await gitOut(repo, ['log', '-1', '--format=%an <%ae>'])).toBe('Included <i@i>');
  });

  it("leaves the user's own includes alone", async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    serve(join(home, 'served.cfg'), '[user]\n\tname = Served\n\temail = s@s\n', true);
    writeFileSync(join(home, '.gitconfig'), `[include]\n\tpath = ${join(home, 'served.cfg')}\n`);
    const env = { HOME: home, GIT_CONFIG_GLOBAL: join(home, '.gitconfig') };
    await git(repo, ['commit', '-q', '--allow-empty', '-m', 'by the user'], { env });
    expect(await gitOut(repo, ['log', '-1', '--format=%an'])).toBe('Served');
  });
});

describe('where git opens an include', () => {
  const cwds = ['/nowhere'];
  it('absolute as written, ~/ under HOME; ~user/ and %(prefix)/ are not guessed', () => {
    expect(includeTargets('/etc/x.cfg', '.git/config', cwds, '/home/u')).toEqual(['/etc/x.cfg']);
    expect(includeTargets('~/x.cfg', '', cwds, '/home/u')).toEqual(['/home/u/x.cfg']);
    expect(includeTargets('~/x.cfg', '', cwds, undefined)).toBeUndefined();
    expect(includeTargets('~root/x.cfg', '', cwds, '/home/u')).toBeUndefined();
    expect(includeTargets('%(prefix)/x.cfg', '', cwds, '/home/u')).toBeUndefined();
  });

  it("a relative path from the including file's folder, that file found where git ran", () => {
    // beforeEach made `repo` with its `.git/config`; git reads it from the checkout's top.
    expect(includeTargets('x.cfg', '.git/config', [join(repo, 'sub'), repo], undefined)).toEqual([
      join(repo, '.git', 'x.cfg'),
    ]);
    expect(includeTargets('../x.cfg', join(repo, '.git', 'config'), cwds, undefined)).toEqual([
      join(repo, 'x.cfg'),
    ]);
    // No folder holds the including file: Baton cannot tell, and refuses rather than guess.
    expect(includeTargets('x.cfg', '.git/config', [join(repo, 'sub')], undefined)).toBeUndefined();
    expect(includeTargets('x.cfg', '', [repo], undefined)).toBeUndefined();
  });
});
