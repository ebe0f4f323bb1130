/**
 * Baton's own git runs as the user, outside the sandbox, in repositories an agent can write: a
 * program the repository's settings name (an fsmonitor, a hook) must not run (decision 196).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from './git.js';
import { snapshotWork } from './snapshot.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("Baton's git in a repository an agent wrote to", () => {
  it('runs neither an fsmonitor nor a hook the repository names', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-programs-'));
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    sh('init', '-q', '-b', 'main');
    const ran = join(dir, 'ran');
    const program = join(dir, 'evil.sh');
    writeFileSync(program, `#!/bin/sh\necho "$0" >> '${ran}'\n`, { mode: 0o755 });
    sh('config', 'core.fsmonitor', program);
    mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(repo, '.git', 'hooks', 'post-commit'), `#!/bin/sh\necho hook >> '${ran}'\n`, {
      mode: 0o755,
    });
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    await git(repo, ['add', '-A']);
    await git(repo, ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'one']);
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    await snapshotWork(repo);
    expect(existsSync(ran)).toBe(false);
    // The same repository run by plain git does run them: the test sees a real danger.
    writeFileSync(join(repo, 'c.txt'), 'c\n');
    sh('add', '-A');
    expect(existsSync(ran)).toBe(true);
  });
});
