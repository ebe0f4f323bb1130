/**
 * Landing another machine's session from here (decision 143, "Another machine's session lands here"): alpha
 * asks beta to hand its session over (commit its work, push it now), fetches the pushed branch
 * and lands it on alpha's own base through alpha's merge queue; beta's session is retired. A
 * conflict goes back to beta's session as a reply. A machine that does not answer has its
 * session landed as it last pushed it, and the merge says so. Its transcript and a handoff from
 * it read the events it published.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { HandoffView } from '../../src/api/context.js';
import type { MergePlanView, MergeResult, PrView } from '../../src/api/merge.js';
import type { TestBaton } from '../support/baton.js';
import {
  ACROSS_MACHINES,
  clusterMachines,
  relayedEvent,
  scripted,
  sessionUntil,
  sharedRepo,
} from '../support/cluster.js';
import { until } from '../support/wait.js';
import { configure } from '../support/landing.js';

const { database, machine } = clusterMachines();

async function merge(
  side: TestBaton,
  cwd: string,
  args: string[],
): Promise<{ code: number; result: MergeResult; stderr: string }> {
  const run = await side.run(['merge', ...args, '--json'], { cwd });
  if (run.stdout.trim() === '')
    throw new Error(`baton merge printed nothing (exit ${run.code}): ${run.stderr}`);
  return { code: run.code, result: JSON.parse(run.stdout) as MergeResult, stderr: run.stderr };
}

/** Beta's session `name`, placed there from alpha's checkout: it commits `committed` and leaves `uncommitted` as is. */
async function onBeta(
  alpha: TestBaton,
  repo: string,
  name: string,
  committed: Record<string, string>,
  uncommitted: Record<string, string>,
): Promise<SessionView> {
  const steps = [
    ...Object.entries(committed).map(([path, content]) => ({ write: { path, content } })),
    { run: ['git', 'add', '-A'] },
    { run: ['git', 'commit', '-q', '-m', `${name}: committed work`] },
    ...Object.entries(uncommitted).map(([path, content]) => ({ write: { path, content } })),
    { say: 'done' },
  ];
  const placed = await alpha.json<SessionView>(
    ['dispatch', `${name}: do the thing`, '--name', name, '--on', 'beta', ...scripted(alpha, steps)],
    { cwd: repo },
  );
  await sessionUntil(
    alpha,
    name,
    (s) => s.machine === 'beta' && s.state === 'ready_for_review',
    `alpha sees ${name} ready on beta`,
  );
  return placed;
}

describe("another machine's session landed from here", () => {
  it('lands it with its uncommitted work on this checkout, retires it on its machine, and sends a conflict back as a reply', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    // No push at turn ends: the hand-over pushes anyway.
    const { repo, remote } = sharedRepo(alpha);

    const placed = await onBeta(
      alpha,
      repo,
      'feat',
      { 'feature.txt': 'feature\n' },
      { 'notes.txt': 'left uncommitted\n' },
    );
    expect(alpha.git(remote, 'for-each-ref', 'refs/heads/baton')).toBe('');
    // Alpha's landing plan lists it, though its work is not on the remote until a merge asks for it.
    expect((await alpha.json<MergePlanView>(['merge', '--plan'], { cwd: repo })).skipped).toContainEqual({
      name: 'feat (on beta)',
      reason: 'its work is not on the remote yet (`baton merge feat` has beta push it)',
    });
    // On beta it works in Baton's own clone, whose base nobody looks at: it lands from a checkout.
    const inClone = await beta.run(['merge', 'feat']);
    expect(inClone.code).not.toBe(0);
    expect(inClone.stderr).toMatch(
      /feat works in Baton's clone of its repository on this machine .*Merge it from a checkout of the repository \(on any machine\)/,
    );
    const before = alpha.git(repo, 'rev-parse', 'main');
    const { code, result } = await merge(alpha, repo, ['feat']);
    expect(code).toBe(0);
    expect(result).toMatchObject({
      outcome: 'landed',
      base: 'main',
      previous: before,
      checkoutUpdated: repo,
    });
    expect(result.message).not.toMatch(/last pushed/);
    expect(alpha.git(repo, 'rev-parse', 'main')).toBe(result.commit);
    expect(readFileSync(join(repo, 'feature.txt'), 'utf8')).toBe('feature\n');
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('left uncommitted\n');
    // Beta committed the uncommitted work before pushing it, as a local merge does.
    expect(alpha.git(repo, 'log', '-1', '--format=%b', 'main')).toMatch(
      /The work session feat left uncommitted, committed by Baton to land it\.\n\nBaton-Session: feat/,
    );
    // Its work came through the remote; the branch brought here is gone once landed.
    expect(alpha.git(remote, 'for-each-ref', '--format=%(refname)', 'refs/heads/baton')).toBe(
      'refs/heads/baton/feat',
    );
    expect(alpha.git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/baton-elsewhere')).toBe('');
    // Retired on beta: completed and removed there, so no machine lists it.
    await until(
      async () => !(await beta.json<SessionView[]>(['ls'])).some((s) => s.name === 'feat'),
      'beta removed feat',
      ACROSS_MACHINES,
    );
    await until(
      async () => !(await alpha.json<SessionView[]>(['ls'])).some((s) => s.name === 'feat'),
      'alpha no longer lists feat',
      ACROSS_MACHINES,
    );
    expect(existsSync(placed.worktree)).toBe(false);

    // A conflict with alpha's main goes back to beta's session, which keeps its work.
    writeFileSync(join(repo, 'shared.txt'), 'alpha wrote this\n');
    alpha.git(repo, 'add', '.');
    alpha.git(repo, 'commit', '-qm', 'alpha edits shared.txt');
    await onBeta(alpha, repo, 'clash', { 'shared.txt': 'beta wrote that\n' }, {});
    const clashed = await merge(alpha, repo, ['clash']);
    expect(clashed.code).not.toBe(0);
    expect(clashed.result).toMatchObject({
      outcome: 'conflicted',
      culprit: { name: 'clash' },
      files: ['shared.txt'],
      replied: true,
    });
    await beta.waitForEvent(
      'clash',
      (e) =>
        e.type === 'message.added' &&
        e.role === 'user' &&
        /could not merge your work \(branch baton\/clash\) into main: it conflicts in\n {2}- shared\.txt[\s\S]*\(The merge ran on machine alpha, onto its main at [0-9a-f]{12}: fetch that from the remote once it is pushed there, to merge it into your branch\.\)/.test(
          e.text,
        ),
    );
    expect((await beta.json<SessionView[]>(['ls'])).find((s) => s.name === 'clash')).toBeDefined();

    // A pull request of it from here: handed over, and proposed under its own branch name.
    const pr = await alpha.json<PrView>(['pr', 'clash'], { cwd: repo });
    expect(pr).toMatchObject({ name: 'clash', remote: 'origin', branch: 'baton/clash' });
    expect(alpha.git(remote, 'rev-parse', 'refs/heads/baton/clash')).toBe(pr.commit);
    expect(alpha.git(repo, 'for-each-ref', 'refs/heads/baton-elsewhere')).toBe('');

    // Its reasoning travels here too: its transcript, and a handoff to a session of this machine's checkout.
    const transcript = (side: TestBaton) =>
      side.json<{ entries: unknown[] }>(['transcript', 'clash', '--json'], { cwd: repo });
    const theirs = (await transcript(beta)).entries;
    await until(
      async () => JSON.stringify((await transcript(alpha)).entries) === JSON.stringify(theirs),
      "alpha reads clash's transcript as beta does",
      ACROSS_MACHINES,
    );
    const handed = await alpha.json<HandoffView>(
      ['handoff', 'clash', '--to', 'scripted', '--name', 'resolver', 'resolve the conflict in shared.txt'],
      { cwd: repo },
    );
    expect(handed.session).toMatchObject({ name: 'resolver', projectRoot: repo });
    expect((await alpha.json<SessionView[]>(['ls'])).find((s) => s.name === 'resolver')?.machine).toBe(
      'alpha',
    );
    for (const part of ['resolve the conflict in shared.txt', 'clash: do the thing', '`shared.txt`'])
      expect(handed.pack.text).toContain(part);
  });

  it('lands a machine that does not answer as it last pushed it, saying so; refuses one whose repository this machine has no checkout of', async () => {
    const url = await database();
    const alpha = await machine('alpha', url, { BATON_CLUSTER_COMMAND_TIMEOUT_MS: '1500' });
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha, { sync: { push: 'turn' } });
    await onBeta(
      alpha,
      repo,
      'late',
      { 'late.txt': 'committed\n' },
      { 'wip.txt': 'uncommitted at the turn end\n' },
    );
    await until(
      () => alpha.git(repo, 'ls-remote', 'origin', 'refs/baton/snapshots/*') || undefined,
      'beta pushed late',
      ACROSS_MACHINES,
    );
    await relayedEvent(alpha, (e) => e.machine === 'beta' && e.type === 'sync.pushed');
    // Pushed at its turn end, it is a step of alpha's landing plan (the page's Landing tab lands from it).
    await until(
      async () =>
        (await alpha.json<MergePlanView>(['merge', '--plan'], { cwd: repo })).steps.some(
          (step) => step.name === 'late (on beta)',
        ),
      "alpha's plan has late",
      ACROSS_MACHINES,
    );

    process.kill(beta.supervisorPid(), 'SIGSTOP');
    try {
      // Someone else's push under the same branch name is not landed as late's.
      alpha.git(repo, 'fetch', '--quiet', 'origin', 'refs/heads/baton/late');
      const pushed = alpha.git(repo, 'rev-parse', 'FETCH_HEAD');
      alpha.git(repo, 'push', '--quiet', '--force', 'origin', 'main:refs/heads/baton/late');
      const foreign = await alpha.run(['merge', 'late'], { cwd: repo });
      expect(foreign.code, foreign.stdout + foreign.stderr).not.toBe(0);
      expect(foreign.stderr).toMatch(
        /The remote's baton\/late \(at [0-9a-f]{12}\) is not known to be the last push of late on beta; land it when beta is back\./,
      );
      alpha.git(repo, 'push', '--quiet', '--force', 'origin', `${pushed}:refs/heads/baton/late`);

      const { code, result } = await merge(alpha, repo, ['late']);
      expect(code).toBe(0);
      expect(result.outcome).toBe('landed');
      expect(result.message).toMatch(
        /beta (did not answer|is away \(.*\)), so late lands as it last pushed it \(with the uncommitted work of its last push\)\./,
      );
      expect(alpha.git(repo, 'show', 'main:late.txt')).toBe('committed');
      expect(alpha.git(repo, 'show', 'main:wip.txt')).toBe('uncommitted at the turn end');
      // Not handed over, so not retired: said, and left for beta.
      expect(result.message).toMatch(
        /late is still listed on beta, which did not hand it over: remove it there once it is back/,
      );
      expect(alpha.git(repo, 'for-each-ref', 'refs/heads/baton-elsewhere')).toBe('');
    } finally {
      process.kill(beta.supervisorPid(), 'SIGCONT');
    }

    // A session of a repository alpha has no checkout of: said, and nothing changes.
    const elsewhere = beta.repo('elsewhere');
    const bare = join(beta.root, 'elsewhere.git');
    beta.git(beta.root, 'init', '--quiet', '--bare', bare);
    beta.git(elsewhere, 'remote', 'add', 'origin', bare);
    await beta.ok(
      [
        'dispatch',
        'x',
        '--name',
        'lonely',
        ...scripted(beta, [{ write: { path: 'x.txt', content: 'x\n' } }, { say: 'done' }]),
      ],
      { cwd: elsewhere },
    );
    await sessionUntil(
      alpha,
      'lonely',
      (s) => s.state === 'ready_for_review' && s.repo !== undefined,
      'alpha sees lonely ready',
    );
    const refused = await alpha.run(['merge', 'lonely'], { cwd: repo });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /This machine has no checkout of \S*elsewhere, where lonely works \(on beta\); run the merge from a checkout of it, or on beta\./,
    );
  });

  it('keeps on its machine a session that ran again while it was being landed, and refuses a second merge of it meanwhile', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha);
    await onBeta(alpha, repo, 'busy', { 'busy.txt': 'work\n' }, {});
    // The check waits until the test says so: the merge is held between hand-over and landing.
    const flag = join(alpha.root, 'go');
    configure(alpha, repo, { merge: { check: `while [ ! -e '${flag}' ]; do sleep 0.05; done` } });
    const merging = merge(alpha, repo, ['busy']);
    await alpha.workspaceEvent((e) => e.type === 'merge.checking');

    const again = await alpha.run(['merge', 'busy'], { cwd: repo });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/busy \(on beta\) is already being merged here; wait for it\./);

    await beta.ok(['reply', 'busy', 'one more thing']);
    await beta.waitForEvent(
      'busy',
      (e) => e.type === 'message.added' && e.role === 'user' && e.text === 'one more thing',
    );
    await beta.waitForState('busy', 'ready_for_review');
    writeFileSync(flag, '');
    const { code, result } = await merging;
    expect(code).toBe(0);
    expect(result.outcome).toBe('landed');
    expect(result.message).toMatch(
      /busy is kept on beta: busy ran again since it was handed over, so it was not retired there/,
    );
    expect((await beta.json<SessionView[]>(['ls'])).find((s) => s.name === 'busy')?.state).toBe(
      'ready_for_review',
    );
    expect(alpha.git(repo, 'for-each-ref', 'refs/heads/baton-elsewhere')).toBe('');
  });
});
