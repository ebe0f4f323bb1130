/**
 * Another machine's session in this machine's review groups: its work is a commit whose objects
 * are in the repository (as a fetch of what it pushed leaves them), with no worktree here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { newId } from '../shared/ids.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
import type { PushedMember } from './groups.js';
import { ReviewService } from './service.js';

let dir: string;
let repo: string;
let db: Db;
let store: SessionStore;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const lines = (change: Record<number, string>): string =>
  Array.from({ length: 20 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-review-elsewhere-')));
  repo = join(dir, 'repo');
  git(dir, 'init', '-q', '-b', 'main', repo);
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  writeFileSync(join(repo, 'notes.md'), lines({}));
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  db = openDb(join(dir, 'baton.db'));
  store = new SessionStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A session of this machine, its worktree holding `text` as notes.md (uncommitted). */
function local(name: string, text: string): SessionWithProject {
  const project = store.ensureProject(repo);
  const worktree = join(dir, 'worktrees', name);
  const base = git(repo, 'rev-parse', 'main');
  git(repo, 'worktree', 'add', '-q', '-b', `baton/${name}`, worktree, base);
  writeFileSync(join(worktree, 'notes.md'), text);
  const id = newId();
  store.insert(
    {
      id,
      project_id: project.id,
      name,
      agent: 'scripted',
      prompt: name,
      model: null,
      permission_mode: 'default',
      options_json: '{}',
      branch: `baton/${name}`,
      base_ref: 'main',
      base_commit: base,
      worktree,
    },
    'ready_for_review',
  );
  return store.get(id)!;
}

/** Another machine's session: a commit of `text` on main, its objects here, no worktree. */
function remote(template: SessionWithProject, name: string, text: string): PushedMember {
  const base = git(repo, 'rev-parse', 'main');
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: repo,
    input: text,
    encoding: 'utf8',
  }).trim();
  const tree = execFileSync('git', ['mktree'], {
    cwd: repo,
    input: `100644 blob ${blob}\tnotes.md\n`,
    encoding: 'utf8',
  }).trim();
  const head = git(repo, 'commit-tree', tree, '-p', base, '-m', `work of ${name}`);
  const session = {
    ...template,
    id: newId(),
    name,
    branch: `baton/${name}`,
    base_commit: base,
    worktree: join(dir, 'elsewhere', name),
  };
  return { session, snapshot: { head, tree } };
}

describe("another machine's session in the review", () => {
  it('joins its project’s group from its pushed work, shows in the combined review, and gets a comment on its lines', async () => {
    const near = local('near', lines({ 3: 'near was here' }));
    const far = remote(near, 'far', lines({ 3: 'far was here' }));
    const replies: [string, string][] = [];
    const review = new ReviewService({
      db,
      bus: new WorkspaceBus(db),
      sessions: () => store.listLive(),
      reply: (id, text) => (replies.push([id, text]), Promise.resolve()),
      elsewhere: () => Promise.resolve([far]),
    });

    const list = await review.listGroups(undefined, repo);
    expect(list.projects[0]?.groups.map((g) => g.members.map((m) => m.name).sort())).toEqual([
      ['far', 'near'],
    ]);
    const group = await review.group('far', undefined, repo);
    expect(group.conflicts.map((c) => [c.path, [...c.sessions].sort()])).toEqual([
      ['notes.md', ['far', 'near']],
    ]);

    const sent = await review.comment(
      String(group.number),
      { path: 'notes.md', line: 3, session: 'far', text: 'keep line 3' },
      undefined,
      repo,
    );
    expect(sent.sentTo).toEqual([{ id: far.session.id, name: 'far' }]);
    expect(replies.map(([id]) => id)).toEqual([far.session.id]);
  });

  it("answers with this machine's groups when the other machines cannot be read", async () => {
    local('near', lines({ 3: 'near was here' }));
    const review = new ReviewService({
      db,
      bus: new WorkspaceBus(db),
      sessions: () => store.listLive(),
      reply: () => Promise.resolve(),
      elsewhere: () => Promise.reject(new Error('store down')),
    });
    const list = await review.listGroups(undefined, repo);
    expect(list.projects[0]?.groups.map((g) => g.members.map((m) => m.name))).toEqual([['near']]);
  });

  it('lists the groups of a checkout only other machines work in', async () => {
    const template = local('template', lines({}));
    const one = remote(template, 'one', lines({ 3: 'one was here' }));
    const two = remote(template, 'two', lines({ 3: 'two was here' }));
    const review = new ReviewService({
      db,
      bus: new WorkspaceBus(db),
      sessions: () => [],
      reply: () => Promise.resolve(),
      elsewhere: () => Promise.resolve([one, two]),
    });
    const here = await review.listGroups(undefined, repo);
    expect(
      here.projects.map((p) => [p.root, p.groups.map((g) => g.members.map((m) => m.name).sort())]),
    ).toEqual([[repo, [['one', 'two']]]]);
    expect((await review.listGroups()).projects.map((p) => p.root)).toEqual([repo]);
    expect((await review.group('one', undefined, repo)).conflicts.map((c) => c.path)).toEqual(['notes.md']);
  });
});
