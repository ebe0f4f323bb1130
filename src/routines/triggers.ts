/**
 * Triggered routines: a session completed, work merged, a task moved (from the workspace bus), a
 * git tag created (a watch on the repository's tag refs, with the timer's tick as a fallback
 * look), and a local HTTP call (src/server, with the routine's own token). A routine's own runs
 * never trigger routines, so two routines cannot feed each other for ever.
 */
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceBus } from '../bus/index.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import type { RoutineSpec, RoutineTrigger } from '../projects/index.js';
import { Coalescer } from '../shared/coalesce.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { RoutineStore, RoutineWithProject } from '../store/routines.js';
import type { SessionWithProject } from '../store/sessions.js';
import { gitOut } from '../worktrees/index.js';
import type { Fire, RoutineRunner } from './runs.js';

const log = createLogger('routines');

interface TagWatch {
  known: Set<string>;
  watchers: FSWatcher[];
}

export class RoutineTriggers {
  private unsubscribe: (() => void) | undefined;
  private readonly tags = new Map<string, TagWatch>();
  /** One look at a repository's tags at a time, and one more when asked during it. */
  private readonly tagLooks = new Coalescer((root) => this.lookForTags(root));

  constructor(
    private readonly bus: WorkspaceBus,
    private readonly store: RoutineStore,
    private readonly runner: RoutineRunner,
    private readonly session: (id: string) => SessionWithProject | undefined,
  ) {}

  start(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      void this.onEvent(event).catch((error: unknown) =>
        log.error('routine trigger failed', { type: event.type, error: errorMessage(error) }),
      );
    });
  }

  close(): void {
    this.unsubscribe?.();
    for (const watch of this.tags.values()) for (const w of watch.watchers) w.close();
    this.tags.clear();
  }

  /** Starts or stops watching tags so exactly the repositories with a tag routine are watched. */
  async refreshTagWatches(): Promise<void> {
    const roots = new Set(this.routinesOn('tag').map((r) => r.project_root));
    for (const [root, watch] of this.tags) {
      if (roots.has(root)) continue;
      for (const w of watch.watchers) w.close();
      this.tags.delete(root);
    }
    for (const root of roots) {
      if (this.tags.has(root)) continue;
      const entry: TagWatch = {
        known: new Set(await listTags(root)),
        watchers: [],
      };
      this.tags.set(root, entry);
      const gitDir = await gitOut(root, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
      for (const folder of [join(gitDir, 'refs', 'tags'), gitDir]) {
        try {
          entry.watchers.push(watch(folder, () => void this.checkTags(root)));
        } catch (error) {
          // The timer's tick still looks every minute.
          log.warn('cannot watch tags', { folder, error: errorMessage(error) });
        }
      }
    }
  }

  /** Fires the tag routines of `root` (every repository when unset) for each tag made since the last look. */
  checkTags(root?: string): Promise<void> {
    if (root === undefined)
      return Promise.all([...this.tags.keys()].map((r) => this.checkTags(r))).then(() => undefined);
    // A change seen during a look asks for one more: git writes a lock file first, so the look
    // that saw it may have missed the tag.
    return this.tagLooks.request(root);
  }

  private async lookForTags(root: string): Promise<void> {
    const entry = this.tags.get(root);
    if (entry === undefined) return;
    try {
      const now = await listTags(root);
      const fresh = now.filter((t) => !entry.known.has(t));
      for (const tag of now) entry.known.add(tag);
      for (const tag of fresh) {
        for (const routine of this.routinesOn('tag').filter((r) => r.project_root === root))
          await this.fire(routine, { trigger: `tag:${tag}`, detail: { tag } });
      }
    } catch (error) {
      log.warn('looking for new tags failed; the next change or tick looks again', {
        root,
        error: errorMessage(error),
      });
    }
  }

  private async onEvent(event: WorkspaceEvent): Promise<void> {
    switch (event.type) {
      case 'session.state_changed': {
        const session = this.session(event.data.sessionId);
        await this.runner.sessionSettled(session, event.data.sessionId);
        if (event.data.to === 'completed' && this.store.runOfSession(event.data.sessionId) === undefined) {
          await this.fireAll('session.completed', event.data.project, { session: event.data.name });
        }
        return;
      }
      case 'session.removed':
        await this.runner.sessionSettled(this.session(event.data.sessionId), event.data.sessionId);
        return;
      case 'merge.landed': {
        const fromRoutines = event.data.sessions.every(
          (s) => this.store.runOfSession(s.sessionId) !== undefined,
        );
        if (!fromRoutines)
          await this.fireAll('merge.landed', event.data.project, {
            sessions: event.data.sessions.map((s) => s.name).join(', '),
            commit: event.data.commit.slice(0, 12),
          });
        return;
      }
      case 'task.moved': {
        const { task, from, to } = event.data;
        await this.fireAll('task.moved', task.projectRoot, { task: `#${task.id} ${task.title}`, from, to });
        return;
      }
      default:
    }
  }

  private async fireAll(on: RoutineTrigger, project: string, detail: Record<string, string>): Promise<void> {
    for (const routine of this.routinesOn(on).filter(
      (r) => r.project_name === project || r.project_root === project,
    ))
      await this.fire(routine, { trigger: on, detail });
  }

  private async fire(routine: RoutineWithProject, fire: Fire): Promise<void> {
    if (routine.paused === 1) {
      this.runner.record(routine, fire, 'skipped', 'the routine is paused');
      return;
    }
    await this.runner.fire(routine, fire);
  }

  private routinesOn(on: RoutineTrigger): RoutineWithProject[] {
    return this.store.all().filter((r) => (JSON.parse(r.spec_json) as RoutineSpec).on === on);
  }
}

async function listTags(root: string): Promise<string[]> {
  const out = await gitOut(root, ['for-each-ref', '--format=%(refname:short)', 'refs/tags']);
  return out === '' ? [] : out.split('\n');
}
