import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
beforeEach(() => {
  t = new TestBaton();
});
afterEach(() => t.cleanup());

/** The supervisor's log lines with this message. */
function logged(msg: string): Record<string, unknown>[] {
  return readFileSync(join(t.home, 'supervisor.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

// Decision 221, "The supervisor times a dispatch's steps; the CLI its own cost": the bench reads
// these back, so a slower dispatch names the step that got slower.
describe("a dispatch's own timings", () => {
  it("logs each step of a dispatch and its host's start, and the CLI's cost to BATON_TIMINGS", async () => {
    const repo = t.repo();
    const timings = join(t.root, 'timings.jsonl');
    for (const name of ['first', 'second']) {
      const r = await t.run(['dispatch', 'x', '--name', name, '--script', t.script([{ say: 'hi' }])], {
        cwd: repo,
        env: { BATON_TIMINGS: timings },
      });
      expect(r.code, r.stderr).toBe(0);
      // The answer comes once the worktree and the record exist; the host starts after it (decision 310).
      expect(r.stdout).toContain(`Dispatched ${name} `);
      expect(r.stdout).toMatch(/: starting\n/);
    }
    // The hosts' own start lines are written once each host reports ready, after the answers.
    for (const name of ['first', 'second']) await t.waitForState(name, 'ready_for_review', 20_000);
    const dispatched = logged('dispatched');
    expect(dispatched.map((d) => d.name)).toEqual(['first', 'second']);
    for (const d of dispatched)
      for (const step of ['validate', 'mainCheckout', 'reserve', 'worktree', 'record', 'start', 'total'])
        expect(d[step], `${String(d.name)} ${step}`).toEqual(expect.any(Number));
    const second = dispatched[1]!;
    const parts = ['validate', 'mainCheckout', 'reserve', 'worktree', 'record', 'start'];
    expect(parts.reduce((sum, step) => sum + (second[step] as number), 0)).toBeLessThanOrEqual(
      (second.total as number) + parts.length,
    );
    const hosts = logged('host started');
    // In either order: the second may take the spare while the first's fresh host still starts.
    expect(hosts.map((h) => h.session).sort()).toEqual(dispatched.map((d) => d.session).sort());
    for (const h of hosts) {
      const steps = h.steps as Record<string, unknown>;
      expect(steps.spare).toEqual(expect.any(Boolean));
      // A fresh host's Node start, or the spare's round trip: whichever took the session.
      expect(steps[steps.spare === true ? 'assign' : 'spawn']).toEqual(expect.any(Number));
      for (const step of ['open', 'listen', 'load', 'agent', 'total'])
        expect(steps[step], step).toEqual(expect.any(Number));
    }
    const cli = readFileSync(timings, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { command: string; boot: number; run: number });
    expect(cli).toHaveLength(2);
    for (const line of cli) {
      expect(line.command).toBe('dispatch');
      expect(line.boot).toBeGreaterThan(0);
      expect(line.run).toBeGreaterThan(0);
    }
  });
});
