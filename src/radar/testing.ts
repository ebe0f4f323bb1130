/**
 * Test support for the radar: a real repository, real worktrees on their own branches and real
 * session rows in a real SQLite store, without agents (the radar reads work from disk; who wrote
 * it does not matter to it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceBus } from '../bus/index.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import { SessionNotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
import type { RadarSessions } from './radar.js';

export const numbered = (n: number, change: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

export class RadarFixture implements RadarSessions {
  readonly dir = mkdtempSync(join(tmpdir(), 'baton-radar-'));
  readonly repo = join(this.dir, 'repo');
  readonly db: Db;
  readonly store: SessionStore;
  readonly bus: WorkspaceBus;
  readonly events: WorkspaceEvent[] = [];

  constructor(files: Record<string, string>) {
    execFileSync('git', ['init', '-q', '-b', 'main', this.repo]);
    this.git(this.repo, 'config', 'user.email', 't@example.com');
    this.git(this.repo, 'config', 'user.name', 'T');
    for (const [path, text] of Object.entries(files)) writeFileSync(join(this.repo, path), text);
    this.git(this.repo, 'add', '.');
    this.git(this.repo, 'commit', '-qm', 'first');
    this.db = openDb(join(this.dir, 'baton.db'));
    this.store = new SessionStore(this.db);
    this.bus = new WorkspaceBus(this.db);
    this.bus.subscribe((event) => this.events.push(event));
  }

  git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  }

  /** A session on its own branch and worktree from `base` (a branch name, or a commit: detached). */
  session(name: string, base = 'main'): SessionWithProject {
    const project = this.store.ensureProject(this.repo);
    const worktree = join(this.dir, 'worktrees', name);
    const baseCommit = this.git(this.repo, 'rev-parse', base);
    this.git(this.repo, 'worktree', 'add', '-q', '-b', `baton/${name}`, worktree, baseCommit);
    const id = newId();
    this.store.insert(
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
        base_ref: base,
        base_commit: baseCommit,
        worktree,
      },
      'working',
    );
    return this.store.get(id)!;
  }

  write(session: SessionWithProject, path: string, text: string): void {
    writeFileSync(join(session.worktree, path), text);
  }

  remove(session: SessionWithProject): void {
    this.git(this.repo, 'worktree', 'remove', '--force', session.worktree);
    this.store.markRemoved(session.id, null);
  }

  list(): SessionWithProject[] {
    return this.store.listLive();
  }

  /** By id or name (the radar takes the session manager's resolution as given). */
  resolve(ref: string): SessionWithProject {
    const found = this.list().find((s) => s.id === ref || s.name === ref);
    if (found === undefined) throw new SessionNotFoundError(ref);
    return found;
  }

  cleanup(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
