import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { BIN, eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

/** Runs the binary on a pseudo-terminal (util-linux `script`), typing `input`, as a person would. */
function runOnTerminal(
  args: string[],
  input: string,
  cwd: string,
): Promise<{ code: number; output: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = execFile('script', ['-qec', command, '/dev/null'], { cwd, env: t.env }, (error, stdout) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, output: stdout });
    });
    child.stdin!.end(input);
  });
}

describe('dangerous permission modes', () => {
  const bypass = ['--permission-mode', 'bypassPermissions'];

  it('are refused for a folder until accepted interactively, and the refusal creates nothing', async () => {
    const refused = await t.run(['dispatch', 'x', '--name', 'd1', ...bypass], { cwd: repo });
    expect(refused.code).toBe(5);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /bypassPermissions lets agents edit files and run any command without asking/,
    );
    expect(await t.json<SessionView[]>(['ls'])).toEqual([]);
    expect(t.git(repo, 'branch', '--list', 'baton/*')).toBe('');
  });

  it('are accepted once on a terminal, for that repository only', async () => {
    const declined = await runOnTerminal(
      ['dispatch', 'x', '--name', 'd1', ...bypass, '--script', t.script([{ say: 'hi' }])],
      'no\n',
      repo,
    );
    expect(declined.output).toContain('Type "yes" to accept');
    expect(declined.code).toBe(5);

    const accepted = await runOnTerminal(
      ['dispatch', 'x', '--name', 'd2', ...bypass, '--script', t.script([{ say: 'hi' }])],
      'yes\n',
      repo,
    );
    expect(accepted.output).toContain('Dispatched d2');
    expect(accepted.code).toBe(0);

    // Now scripts may use it in this repository…
    const later = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'd3', ...bypass, '--script', t.script([{ say: 'hi' }])],
      { cwd: repo },
    );
    expect(later.permissionMode).toBe('bypassPermissions');
    // …but not in another one.
    const other = t.repo('other');
    expect((await t.run(['dispatch', 'x', '--name', 'd4', ...bypass], { cwd: other })).code).toBe(5);
  });

  it('accept-dangerous answered "no" on a terminal exits 5, and bypassPermissions then asks nothing, as documented', async () => {
    const no = await runOnTerminal(['accept-dangerous'], 'no\n', repo);
    expect([no.code, no.output.includes('Not accepted.')]).toEqual([5, true]);
    const yes = await runOnTerminal(['accept-dangerous'], 'yes\n', repo);
    expect(yes.code).toBe(0);

    const steps = [{ approve: { tool: 'Bash', input: 'echo ran > bypassed.txt', reason: 'writes a file' } }];
    await t.ok(['dispatch', 'x', '--name', 'free', ...bypass, '--script', t.script(steps)], { cwd: repo });
    await t.waitForState('free', 'ready_for_review');
    const log = await t.ok(['logs', 'free', '--json']);
    expect(log).not.toContain('approval.requested');
    expect(log).toContain('echo ran > bypassed.txt');
  });

  it('acceptEdits lets a file edit through and still asks before a command', async () => {
    const steps = [
      { approve: { tool: 'Edit', input: 'src/a.ts' } },
      { approve: { tool: 'Bash', input: 'echo hi' } },
    ];
    await t.ok(
      ['dispatch', 'x', '--name', 'edits', '--permission-mode', 'acceptEdits', '--script', t.script(steps)],
      { cwd: repo },
    );
    const waiting = await t.waitForState('edits', 'needs_input');
    expect(waiting.reason).toMatchObject({ kind: 'approval', tool: 'Bash' });
    expect((await t.ok(['logs', 'edits', '--json'])).match(/approval\.requested/g)).toHaveLength(1);
  });

  it('accept-dangerous refuses to run without a terminal', async () => {
    const result = await t.run(['accept-dangerous'], { cwd: repo });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/must be run in a terminal/);
  });
});
