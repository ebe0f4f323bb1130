import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkGroup, type GroupCheck } from './bisect.js';

let scratch: string;
const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: scratch, encoding: 'utf8' }).trim();

beforeEach(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'baton-bisect-')));
  execFileSync('git', ['init', '-q', '-b', 'main', scratch]);
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'T');
  writeFileSync(join(scratch, 'base.txt'), 'base\n');
  git('add', '.');
  git('commit', '-qm', 'base');
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** One commit a member, in order; a member named in `breaking` leaves a file the check refuses. */
function members(count: number, breaking: number[] = []): string[] {
  const heads: string[] = [];
  for (let i = 0; i < count; i++) {
    writeFileSync(join(scratch, `m${i}.txt`), `${i}\n`);
    if (breaking.includes(i)) writeFileSync(join(scratch, `broken-by-${i}`), 'x\n');
    git('add', '.');
    git('commit', '-qm', `member ${i}`);
    heads.push(git('rev-parse', 'HEAD'));
  }
  return heads;
}

/** The check fails while any `broken-by-*` file is in the tree; each run's commit and size is kept. */
function group(heads: string[], runs: { commit: string; members: number }[]): GroupCheck {
  return {
    scratch,
    heads,
    command: 'if ls broken-by-* >/dev/null 2>&1; then echo broken; exit 1; fi',
    timeoutSeconds: 30,
    env: process.env,
    onChecking: (_command, commit, count) => runs.push({ commit, members: count }),
  };
}

describe('where a merge bisects', () => {
  it('checks a passing group once, on the whole', async () => {
    const heads = members(4);
    const runs: { commit: string; members: number }[] = [];
    const verdict = await checkGroup(group(heads, runs));
    expect(verdict).toMatchObject({ passed: true, check: { outcome: 'passed', exitCode: 0 } });
    expect(runs).toEqual([{ commit: heads[3], members: 4 }]);
  });

  it('halves a failing group to the first member that broke it, and names the failing run', async () => {
    const heads = members(8, [5, 6]);
    const runs: { commit: string; members: number }[] = [];
    const verdict = await checkGroup(group(heads, runs));
    expect(verdict).toMatchObject({ passed: false, culprit: 5, bisected: true });
    if (verdict.passed) throw new Error('unreachable');
    expect(verdict.check).toMatchObject({ outcome: 'failed', exitCode: 1, outputTail: 'broken' });
    // The whole, then prefixes of 4, 6 and 5 members: log2(8) runs after the first, not 8.
    expect(runs.map((r) => r.members)).toEqual([8, 4, 6, 5]);
  });

  it('blames the first member when it alone breaks the group, and a lone member without bisecting', async () => {
    const heads = members(3, [0]);
    const verdict = await checkGroup(group(heads, []));
    expect(verdict).toMatchObject({ passed: false, culprit: 0, bisected: true });
    rmSync(scratch, { recursive: true, force: true });
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'baton-bisect-')));
    execFileSync('git', ['init', '-q', '-b', 'main', scratch]);
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 'T');
    const lone = members(1, [0]);
    expect(await checkGroup(group(lone, []))).toMatchObject({ passed: false, culprit: 0, bisected: false });
  });

  it('does not run the check again on a tree it passed on at a turn end, and says which run it reused', async () => {
    const heads = members(2, [1]);
    const tree = git('rev-parse', `${heads[1]}^{tree}`);
    const runs: { commit: string; members: number }[] = [];
    const asked: string[] = [];
    const verdict = await checkGroup({
      ...group(heads, runs),
      reuse: (t, command) => {
        asked.push(command);
        return t === tree
          ? {
              sessionId: 's1',
              name: 'alpha',
              turn: 3,
              tree,
              at: '2026-01-01T00:00:00.000Z',
              durationMs: 1200,
              exitCode: 0,
              outputTail: 'ok',
            }
          : undefined;
      },
    });
    expect(runs).toEqual([]);
    expect(asked).toEqual(['if ls broken-by-* >/dev/null 2>&1; then echo broken; exit 1; fi']);
    expect(verdict).toMatchObject({
      passed: true,
      check: { outcome: 'passed', durationMs: 1200, reused: { tree, name: 'alpha', turn: 3 } },
    });
  });
});
