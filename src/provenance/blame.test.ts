/** `baton blame` and `baton why` take a path from the user: a bad one is a clear refusal. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../shared/errors.js';
import { blameFile } from './blame.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('blameFile', () => {
  it('refuses a path outside the repository or holding a NUL as bad input, reading nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-blame-'));
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
    sh('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    sh('add', '-A');
    sh('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'one');
    for (const path of ['../../etc/passwd', '/etc/passwd', 'a.txt\0../../etc/passwd', 'a\0b'])
      await expect(blameFile(dir, path)).rejects.toBeInstanceOf(InvalidInputError);
    expect((await blameFile(dir, 'a.txt')).map((l) => l.text)).toEqual(['a']);
  });
});
