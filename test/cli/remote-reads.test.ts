/**
 * What only a session's machine has, read from another machine (decision 132, "Another machine's diff,
 * changed files and usage"): the diff and changed files of its worktree, and its usage running totals.
 * Alpha asks beta through the shared store; beta answers from its own worktree and store.
 */
import { describe, expect, it } from 'vitest';
import type { DiffStatView } from '../../src/api/history.js';
import type { PeekView } from '../../src/api/index.js';
import type { UsageView } from '../../src/api/web.js';
import { clusterMachines, sessionUntil } from '../support/cluster.js';

const { database, machine } = clusterMachines();

describe("another machine's session, read from here", () => {
  it("shows its diff, changed files and usage as its own machine does; one that does not answer fails with the machine's name", async () => {
    const url = await database();
    const alpha = await machine('alpha', url, { BATON_CLUSTER_COMMAND_TIMEOUT_MS: '1500' });
    const beta = await machine('beta', url);
    const steps = [
      { write: { path: 'notes.md', content: 'line one\nline two\n' } },
      { usage: { input: 1200, output: 80, usd: 0.01 } },
      { usage: { input: 300, output: 20, usd: 0.002 } },
      { ask: 'Keep the notes?' },
    ];
    await beta.ok(
      ['dispatch', 'write notes', '--name', 'writer', '--agent', 'scripted', '--script', beta.script(steps)],
      { cwd: beta.repo() },
    );
    await beta.waitForState('writer', 'needs_input');
    await sessionUntil(alpha, 'writer', (s) => s.state === 'needs_input', 'alpha sees writer waiting');

    const here = await beta.json<DiffStatView>(['diff', 'writer', '--stat', '--json']);
    const there = await alpha.json<DiffStatView & { diff: string }>(['diff', 'writer', '--json']);
    expect(there).toMatchObject({ session: 'writer', files: here.files, additions: 2, deletions: 0 });
    expect(there.diff).toContain('+line two');
    expect(await alpha.ok(['diff', 'writer', '--stat'])).toBe(await beta.ok(['diff', 'writer', '--stat']));

    const peek = await alpha.json<PeekView>(['peek', 'writer']);
    expect(peek.filesChanged).toEqual((await beta.json<PeekView>(['peek', 'writer'])).filesChanged);
    expect(peek.filesChanged.map((f) => f.path)).toEqual(['notes.md']);

    const usage = await alpha.client().call('GET /api/sessions/:ref/usage', { params: { ref: 'writer' } });
    const own: UsageView = await beta
      .client()
      .call('GET /api/sessions/:ref/usage', { params: { ref: 'writer' } });
    expect(usage).toEqual(own);
    expect(usage.points.map((p) => [p.inputTokens, p.outputTokens])).toEqual([
      [1200, 80],
      [1500, 100],
    ]);

    // Beta stops answering: the read fails naming it, and a peek still answers, without the files.
    process.kill(beta.supervisorPid(), 'SIGSTOP');
    try {
      const diff = await alpha.run(['diff', 'writer']);
      expect(diff.code).not.toBe(0);
      expect(diff.stderr).toContain('The machine "beta" did not take the command within 1500 ms');
      expect((await alpha.json<PeekView>(['peek', 'writer'])).filesChanged).toEqual([]);
    } finally {
      process.kill(beta.supervisorPid(), 'SIGCONT');
    }
  });
});
