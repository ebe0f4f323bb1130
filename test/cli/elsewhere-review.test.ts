/**
 * The conflict radar and the review groups across machines (decision 144, "The radar and review groups
 * see other machines' sessions"; "branches through the remote"): a session on beta and one on alpha
 * edit the same lines of one file; each machine's work reaches the shared remote at its turn end, and
 * each machine's `baton conflicts` finds the pair, naming the other machine; alpha's `baton review`
 * groups beta's session with its own, and a comment on beta's lines goes to it through beta.
 */
import { describe, expect, it } from 'vitest';
import type { Conflict, ConflictsView } from '../../src/api/conflicts.js';
import type { GroupReview, ReviewGroupList } from '../../src/api/review.js';
import type { TestBaton } from '../support/baton.js';
import { clusterMachines, scripted, sessionUntil, sharedRepo, ACROSS_MACHINES } from '../support/cluster.js';
import { until } from '../support/wait.js';

const { database, machine } = clusterMachines();

/** Polls `side`'s `baton conflicts` (a fresh pass each time) until it lists the hot pair of `mine` and `theirs`. */
function hotPair(side: TestBaton, mine: string, theirs: string, cwd: string): Promise<Conflict> {
  return until(
    async () => {
      const view = await side.json<ConflictsView>(['conflicts'], { cwd });
      return view.conflicts.find(
        (c) =>
          c.level === 'hot' &&
          c.b.kind === 'session' &&
          [c.a.name, c.b.name].sort().join() === [mine, theirs].sort().join(),
      );
    },
    `${mine} and ${theirs} are hot on ${side.env.BATON_MACHINE ?? '?'}`,
    ACROSS_MACHINES,
  );
}

describe("another machine's sessions in this machine's radar and review", () => {
  it("finds beta's session and alpha's hot on both machines, groups them in alpha's review, and sends a comment on beta's lines to it through beta", async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const { repo } = sharedRepo(alpha, { sync: { push: 'turn' } });

    const edit = (text: string): unknown[] => [
      { write: { path: 'README.md', content: `# ${text}\n` } },
      { say: 'done' },
    ];
    await alpha.ok(
      ['dispatch', 'edit the title', '--name', 'far', '--on', 'beta', ...scripted(alpha, edit('from beta'))],
      { cwd: repo },
    );
    await alpha.ok(['dispatch', 'edit the title', '--name', 'near', ...scripted(alpha, edit('from alpha'))], {
      cwd: repo,
    });
    await alpha.waitForState('near', 'ready_for_review');
    await sessionUntil(
      alpha,
      'far',
      (s) => s.machine === 'beta' && s.state === 'ready_for_review',
      'alpha sees far done on beta',
    );

    const onAlpha = await hotPair(alpha, 'near', 'far', repo);
    const far = onAlpha.a.name === 'far' ? onAlpha.a : onAlpha.b;
    const near = onAlpha.a.name === 'near' ? onAlpha.a : onAlpha.b;
    expect(far).toMatchObject({ kind: 'session', name: 'far', machine: 'beta' });
    expect(near).not.toHaveProperty('machine');
    expect(onAlpha.files.map((f) => [f.path, f.level])).toEqual([['README.md', 'hot']]);
    expect(JSON.stringify(onAlpha.files)).toContain('+# from beta');
    expect(await alpha.ok(['conflicts'], { cwd: repo })).toMatch(
      /HOT +(far \(on beta\) ↔ near|near ↔ far \(on beta\))/,
    );
    // Filtered by another machine's session, as by one of this machine's.
    expect(
      (await alpha.json<ConflictsView>(['conflicts', 'far'], { cwd: repo })).conflicts.map((c) => c.key),
    ).toEqual([onAlpha.key]);

    // Beta's radar sees the same pair from its side, alpha's session as the remote one.
    const onBeta = await hotPair(beta, 'far', 'near', beta.root);
    expect(onBeta.a.name === 'near' ? onBeta.a : onBeta.b).toMatchObject({ name: 'near', machine: 'alpha' });

    const groups = await alpha.json<ReviewGroupList>(['review'], { cwd: repo });
    const members = groups.projects.flatMap((p) => p.groups).map((g) => g.members.map((m) => m.name).sort());
    expect(members).toContainEqual(['far', 'near']);
    const review = await alpha.json<GroupReview>(['review', 'far'], { cwd: repo });
    expect(review.conflicts).toEqual([
      { path: 'README.md', sessions: expect.arrayContaining(['far', 'near']) as unknown },
    ]);

    const sent = await alpha.json<{ sentTo: { name: string }[] }>(
      [
        'review',
        String(review.number),
        '--comment',
        'README.md:1',
        '--to',
        'far',
        'keep',
        'the',
        'old',
        'title',
      ],
      { cwd: repo },
    );
    expect(sent.sentTo.map((m) => m.name)).toEqual(['far']);
    await beta.waitForEvent(
      'far',
      (e) => e.type === 'turn.started' && (e.prompt ?? '').includes('keep the old title'),
    );
  });
});
