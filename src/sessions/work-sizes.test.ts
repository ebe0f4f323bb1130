import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceBus } from '../bus/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import { WorkSizes } from './work-sizes.js';

let repo: string;
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeEach(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'baton-work-sizes-')));
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git('add', '.');
  git('commit', '-qm', 'first');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('work sizes', () => {
  it('knows, without measuring, only the counts it has measured: what a page is rendered with', async () => {
    const session = {
      id: 's1',
      worktree: repo,
      base_commit: git('rev-parse', 'HEAD'),
      last_seq: 1,
      state: 'working',
    } as SessionWithProject;
    const bus = { subscribe: () => () => undefined } as unknown as WorkspaceBus;
    const sizes = new WorkSizes({ list: () => [session], get: () => session }, bus);
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    writeFileSync(join(repo, 'b.txt'), 'new\n');
    // Nothing measured yet: no count, rather than a made-up zero.
    expect(sizes.known()).toEqual({});
    await sizes.all();
    expect(sizes.known()).toEqual({ s1: 2 });
    sizes.close();
  });
});
