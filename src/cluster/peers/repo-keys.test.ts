import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RepoKeys } from './repo-keys.js';

let dir: string;
let repo: string;
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-repo-keys-')));
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', repo]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a checkout's identity across machines", () => {
  it('is looked up once, then again after a minute, so a remote added later counts', async () => {
    let now = 0;
    const keys = new RepoKeys(() => now);
    expect(keys.peek(repo)).toBeUndefined();
    expect(await keys.of(repo)).toBeNull();
    git('remote', 'add', 'origin', 'git@github.com:team/app.git');
    expect(await keys.of(repo)).toBeNull();
    now = 60_000;
    expect(await keys.of(repo)).toBe('github.com/team/app');
    expect(keys.peek(repo)).toBe('github.com/team/app');
  });

  it('of a checkout whose config is broken is none, remembered, and found once it is fixed', async () => {
    git('remote', 'add', 'origin', 'https://github.com/team/app.git');
    mkdirSync(join(repo, '.baton'));
    writeFileSync(join(repo, '.baton', 'config.json'), '{"sync": {"remote": "origin",}}');
    let now = 0;
    const keys = new RepoKeys(() => now);
    expect(await keys.of(repo)).toBeNull();
    // Remembered: a caller that asks again until it knows is answered at once, not sent round.
    expect(keys.peek(repo)).toBeNull();
    writeFileSync(join(repo, '.baton', 'config.json'), '{"sync": {"remote": "origin"}}');
    now = 60_000;
    expect(await keys.of(repo)).toBe('github.com/team/app');
  });
});
