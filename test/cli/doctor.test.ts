import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../src/api/doctor.js';
import { TestBaton } from '../support/baton.js';

let t: TestBaton | undefined;
afterEach(() => t?.cleanup());

const byId = (checks: DoctorCheck[]): Record<string, DoctorCheck> =>
  Object.fromEntries(checks.map((c) => [c.id, c]));

describe('baton doctor', () => {
  it('fails when no real agent can reach its vendor, and says how to fix each line', async () => {
    // A codex that is not there and no keys: the bundled claude is found, but not signed in.
    t = new TestBaton({ BATON_CODEX_PATH: '/nonexistent/codex' });
    const repo = t.repo();
    const run = await t.run(['doctor', '--json'], { cwd: repo });
    expect(run.code, run.stderr).toBe(15);
    const checks = byId((JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks);
    expect(checks.node?.status).toBe('ok');
    expect(checks.git?.status).toBe('ok');
    expect(checks.supervisor).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/version \d+\.\d+\.\d+, pid \d+/),
    });
    expect(checks['agent.claude']).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/not signed in/),
    });
    expect(checks['agent.codex']).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/BATON_CODEX_PATH/),
    });
    expect(checks.agents?.status).toBe('fail');
    expect(checks['disk.worktrees']?.detail).toMatch(/0 live worktrees/);

    const human = await t.run(['doctor'], { cwd: repo });
    expect(human.code).toBe(15);
    expect(human.stdout).toMatch(/^✗ Agents\s+no real agent is ready/m);
    expect(human.stdout).toMatch(/fix: run claude once and sign in/);
    expect(human.stdout).toMatch(/\d+ checks: 1 failed, \d+ to look at\n$/);
  });

  it("passes with a signed-in agent, and counts a session's worktree", async () => {
    t = new TestBaton({ BATON_CODEX_PATH: '/nonexistent/codex' });
    const repo = t.repo();
    // A sign-in file in the supervisor's home, as `claude` writes it.
    const claudeDir = join(t.root, 'user', '.claude');
    mkdirSync(claudeDir, { recursive: true });
    writeFileSync(join(claudeDir, '.credentials.json'), '{}');
    await t.ok(['dispatch', 'x', '--name', 'one', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    const run = await t.run(['doctor', '--json'], { cwd: repo });
    expect(run.code, run.stdout).toBe(0);
    const checks = byId((JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks);
    expect(checks['agent.claude']).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/signed in \(.*\.credentials\.json\)/),
    });
    expect(checks.agents).toBeUndefined();
    expect(checks['disk.worktrees']?.detail).toMatch(/^1 live worktree use/);
    // This machine has bubblewrap (the test set-up provides it): the boundary is said to hold.
    expect(checks.sandbox).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^bubblewrap /) });

    // Turned off, the doctor says agents run as the user, with the fix.
    await t.ok(['daemon', 'stop']);
    t.env.BATON_SANDBOX = 'off';
    const off = byId(
      (JSON.parse((await t.run(['doctor', '--json'], { cwd: repo })).stdout) as { checks: DoctorCheck[] })
        .checks,
    );
    expect(off.sandbox).toMatchObject({ status: 'warn', detail: expect.stringMatching(/BATON_SANDBOX=off/) });
  });
});
