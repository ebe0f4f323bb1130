/**
 * Keep-fresh (decision 307, "Keep-fresh: an idle session's branch is rebased onto its moving
 * base; a conflict is aborted and handed over"). When a session's base branch moves — a landing,
 * or the user's own commits — each session behind it is brought up to date at a turn boundary:
 *
 * - idle (ready for review, or needs input between turns): a checkpoint, then `git rebase
 *   --update-refs` in its own worktree while no command of its own runs (a reply waits) and its
 *   host hands its agent no reply it queued during the last turn (decision 456);
 * - clean: recorded (`fresh.rebased`) and its base commit moved, so its change is its own again;
 * - conflicting: aborted, the worktree put back exactly, and handed to its agent as a turn, or
 *   left for the user, per `keepFresh.conflicts` (`fresh.conflicted`), once per base tip;
 * - at work (preparing, starting, working, or waiting on an approval mid-turn): never touched;
 *   deferred until its turn ends (`fresh.deferred`), when the state change brings it back here;
 * - mid-rebase or mid-merge, left so by its agent: never touched; the agent (or user) is told;
 * - being landed (queued for a merge, or merging): never touched; deferred until its merge ends
 *   (`fresh.deferred`, why `merging`). The merge queue also holds its members while it runs, so a
 *   rebase that started first ends before the merge snapshots the branch (decision 401).
 *
 * Passes run one at a time, on a landing, on a session coming to rest, and every `intervalMs`
 * (the user's own commits make no event). A pass costs one `git rev-parse` per base branch
 * while nothing moved.
 */
import { existsSync } from 'node:fs';
import type { WorkspaceBus } from '../bus/index.js';
import { FreshConflicted, FreshDeferred, FreshRebased, type WorkspaceEvent } from '../events/workspace.js';
import type { SessionView } from '../api/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import { createLogger } from '../shared/log.js';
import { errorMessage } from '../shared/errors.js';
import { contains, gitOut, rebaseWorktree, takeCheckpoint, type RebaseOutcome } from '../worktrees/index.js';

const log = createLogger('fresh');

/** What keep-fresh needs of the sessions domain (the session manager provides it). */
export interface FreshSessions {
  list(): SessionWithProject[];
  /**
   * Runs `work` while no command of the session's own runs and its host hands its agent nothing (a
   * reply it queued while a turn ran waits too); undefined when its host says a turn is under way.
   */
  whileQuiet<T>(sessionId: string, work: (session: SessionWithProject) => Promise<T>): Promise<T | undefined>;
  moveBase(sessionId: string, commit: string): void;
  reply(ref: string, text: string): Promise<unknown>;
}

export interface FreshOptions {
  sessions: FreshSessions;
  bus: WorkspaceBus;
  enabled: boolean;
  /** Who gets a conflicting rebase: the session's agent, as its next turn, or the user. */
  conflicts: 'agent' | 'user';
  intervalMs: number;
  clock?: () => Date;
  /**
   * Whether a merge not yet ended holds the session (the merge queue's own word, journal included):
   * a landing a killed supervisor left unfinished is one until the restart's recovery ends it,
   * with no `merge.queued` heard by this process (decision 405).
   */
  merging?: (sessionId: string) => boolean;
}

type Fresh = NonNullable<SessionView['fresh']>;

/** Between turns: its agent is not running one (an approval pending is mid-turn). */
export function isResting(session: SessionWithProject): boolean {
  if (session.state === 'ready_for_review') return true;
  if (session.state !== 'needs_input') return false;
  // An approval pending is a tool call mid-turn: the worktree is its agent's.
  try {
    return (JSON.parse(session.state_reason_json ?? 'null') as { kind?: string } | null)?.kind !== 'approval';
  } catch {
    return false;
  }
}

/** Its agent is at work on a turn (or about to be): its worktree is its agent's alone. */
function isAtWork(session: SessionWithProject): boolean {
  return ['preparing', 'starting', 'working', 'needs_input'].includes(session.state) && !isResting(session);
}

export class KeepFresh {
  private readonly status = new Map<string, Fresh>();
  /** The base tip each session was last told about (a conflict, a worktree mid-operation), so it is told once per tip. */
  private readonly told = new Map<string, string>();
  /** Why and at which base tip each session was last deferred, so it makes one event per tip and reason. */
  private readonly deferred = new Map<string, string>();
  /** Sessions a merge has queued and not yet ended: their branch is the merge's (decision 401). */
  private readonly merging = new Set<string>();
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: FreshOptions) {}

  start(): void {
    if (!this.options.enabled) return;
    this.unsubscribe = this.options.bus.subscribe((event: WorkspaceEvent) => {
      if (event.type === 'merge.queued')
        for (const member of event.data.sessions) this.merging.add(member.sessionId);
      else if (
        event.type === 'merge.landed' ||
        event.type === 'merge.conflicted' ||
        event.type === 'merge.failed'
      ) {
        for (const member of event.data.sessions) this.merging.delete(member.sessionId);
        void this.poke();
      }
      // A session coming to rest may have been deferred while it worked.
      else if (
        event.type === 'session.state_changed' &&
        ['ready_for_review', 'needs_input'].includes(event.data.to)
      )
        void this.poke();
    });
    this.timer = setInterval(() => void this.poke(), this.options.intervalMs);
    this.timer.unref();
    // A pass never rejects: its failures are logged inside.
    void this.poke();
  }

  stop(): void {
    this.unsubscribe?.();
    clearInterval(this.timer);
  }

  /** What keep-fresh last did or holds for the session, for its view. */
  of(sessionId: string): Fresh | undefined {
    return this.status.get(sessionId);
  }

  /** Asks for a pass; one already running runs once more after it. Resolves when the work asked for is done. */
  poke(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    const run = async (): Promise<void> => {
      do {
        this.again = false;
        await this.pass().catch((error: unknown) =>
          log.error('keep-fresh pass failed', { error: errorMessage(error) }),
        );
      } while (this.again);
    };
    this.running = run().finally(() => (this.running = undefined));
    return this.running;
  }

  private now(): string {
    return (this.options.clock?.() ?? new Date()).toISOString();
  }

  private async pass(): Promise<void> {
    const tips = new Map<string, Promise<string | undefined>>();
    const tipOf = (session: SessionWithProject): Promise<string | undefined> => {
      const key = `${session.project_root}\0${session.base_ref}`;
      let tip = tips.get(key);
      if (tip === undefined) {
        tip = gitOut(session.project_root, [
          'rev-parse',
          '--verify',
          '--quiet',
          '--end-of-options',
          `${session.base_ref}^{commit}`,
        ]).then(
          (out) => out || undefined,
          () => undefined,
        );
        tips.set(key, tip);
      }
      return tip;
    };
    const live = this.options.sessions.list();
    for (const id of this.status.keys()) if (!live.some((s) => s.id === id)) this.forget(id);
    for (const session of live) {
      // Its own checkout (in place), a detached base, or a branch that is its own base: nothing to keep fresh against.
      if (
        session.worktree === session.project_root ||
        session.base_ref === 'HEAD' ||
        session.base_ref === session.branch ||
        !existsSync(session.worktree)
      )
        continue;
      if (!isResting(session) && !isAtWork(session)) continue;
      const tip = await tipOf(session);
      if (tip === undefined || tip === session.base_commit) continue;
      try {
        await this.consider(session, tip);
      } catch (error) {
        log.warn('could not keep a session fresh', { session: session.id, error: errorMessage(error) });
      }
    }
  }

  private async consider(session: SessionWithProject, tip: string): Promise<void> {
    if (await landedIn(session, tip)) {
      // Its commits are in the base already (a landing not yet retired, or one a restart finishes):
      // nothing to rebase, and its base stays, so the landing's notes and diff still see its change.
      return;
    }
    if (await contains(session.worktree, tip)) {
      // Caught up by its agent (a rebase or merge of its own): its change counts from the new tip.
      this.options.sessions.moveBase(session.id, tip);
      if (this.status.get(session.id)?.status !== 'rebased') this.status.delete(session.id);
      this.told.delete(session.id);
      return;
    }
    if (this.merging.has(session.id) || this.options.merging?.(session.id) === true) {
      const message = `behind ${session.base_ref}: being merged; rebased only if it does not land`;
      this.defer(session, tip, 'merging', message);
      return;
    }
    if (isAtWork(session)) {
      this.defer(session, tip, 'working', `behind ${session.base_ref}: rebased when its turn ends`);
      return;
    }
    if (this.told.get(session.id) === tip) return;
    const done = await this.options.sessions.whileQuiet(session.id, async (now) => {
      // Looked at again under the hold: a reply may have started a turn meanwhile.
      if (!isResting(now)) return undefined;
      const checkpoint = takeCheckpoint(
        now.worktree,
        now.id,
        `keep-fresh: rebase onto ${now.base_ref} ${tip.slice(0, 10)}`,
      );
      const outcome = await rebaseWorktree(now.worktree, tip);
      if (outcome.kind === 'rebased' || outcome.kind === 'up_to_date')
        this.options.sessions.moveBase(now.id, tip);
      return { outcome, checkpoint: checkpoint.checkpoint.name };
    });
    if (done === undefined) return this.consider({ ...session, state: 'working' }, tip);
    await this.settle(session, tip, done.outcome, done.checkpoint);
  }

  /** Says once per base tip and reason that the session is behind and left as it is for now. */
  private defer(session: SessionWithProject, tip: string, why: 'working' | 'merging', message: string): void {
    this.status.set(session.id, { status: 'behind', message, at: this.now() });
    const key = `${why} ${tip}`;
    if (this.deferred.get(session.id) === key) return;
    this.deferred.set(session.id, key);
    this.options.bus.publish(FreshDeferred, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      baseRef: session.base_ref,
      onto: tip,
      why,
      message,
    });
  }

  private async settle(
    session: SessionWithProject,
    tip: string,
    outcome: RebaseOutcome,
    checkpoint: string,
  ): Promise<void> {
    const ref = { sessionId: session.id, name: session.name, project: session.project_name };
    const base = session.base_ref;
    const short = tip.slice(0, 8);
    this.deferred.delete(session.id);
    switch (outcome.kind) {
      case 'up_to_date':
        return;
      case 'rebased': {
        const message = `rebased onto ${base} (${short}), ${outcome.commits} commit${outcome.commits === 1 ? '' : 's'} of its own; checkpoint ${checkpoint} holds the work before`;
        this.status.set(session.id, { status: 'rebased', message, at: this.now() });
        this.told.delete(session.id);
        this.options.bus.publish(FreshRebased, {
          ...ref,
          baseRef: base,
          onto: tip,
          from: outcome.from,
          head: outcome.head,
          commits: outcome.commits,
          checkpoint,
        });
        log.info('rebased an idle session onto its moved base', { session: session.id, onto: tip });
        return;
      }
      case 'conflict': {
        this.told.set(session.id, tip);
        const handedTo = this.options.conflicts;
        const files = outcome.files.slice(0, 20).join(', ');
        const message = `behind ${base} (${short}): rebasing conflicts in ${files}; ${handedTo === 'agent' ? 'handed to its agent' : 'yours to resolve'}`;
        this.status.set(session.id, { status: 'conflict', message, at: this.now() });
        this.options.bus.publish(FreshConflicted, {
          ...ref,
          baseRef: base,
          onto: tip,
          files: outcome.files,
          handedTo,
          checkpoint,
        });
        if (handedTo === 'agent')
          await this.options.sessions.reply(
            session.id,
            `Baton keep-fresh: the base branch \`${base}\` moved (now ${short}) and your branch no longer rebases cleanly onto it — conflicts in ${files}. Nothing of yours was changed (checkpoint ${checkpoint} holds your work). The base moved; rebase onto it and resolve the conflicts (\`git rebase --update-refs ${base}\`, then \`git rebase --continue\` after each resolution), check your work still holds, and go on with your task.`,
          );
        return;
      }
      case 'mid_operation': {
        this.told.set(session.id, tip);
        const message = `behind ${base} (${short}); its worktree is in the middle of a ${outcome.operation}: ${this.options.conflicts === 'agent' ? 'its agent was told to finish or abort it' : 'finish or abort it'}`;
        this.status.set(session.id, { status: 'behind', message, at: this.now() });
        this.options.bus.publish(FreshDeferred, {
          ...ref,
          baseRef: base,
          onto: tip,
          why: 'mid_operation',
          message,
        });
        if (this.options.conflicts === 'agent')
          await this.options.sessions.reply(
            session.id,
            `Baton keep-fresh: your worktree is in the middle of a ${outcome.operation} (\`git status\` shows it) and the base branch \`${base}\` moved (now ${short}). Finish it (\`git ${outcome.operation} --continue\` once conflicts are resolved) or abort it (\`git ${outcome.operation} --abort\`), then rebase onto \`${base}\`; a worktree left mid-${outcome.operation} stops every later command.`,
          );
        return;
      }
      case 'failed': {
        this.told.set(session.id, tip);
        const message = `behind ${base} (${short}): not rebased, ${outcome.message}${outcome.restored ? '' : ' (the worktree may need a look: checkpoint ' + checkpoint + ' holds the work)'}`;
        this.status.set(session.id, { status: 'behind', message, at: this.now() });
        this.options.bus.publish(FreshDeferred, { ...ref, baseRef: base, onto: tip, why: 'failed', message });
        return;
      }
    }
  }

  private forget(id: string): void {
    this.status.delete(id);
    this.told.delete(id);
    this.deferred.delete(id);
  }
}

/**
 * The session's branch has commits of its own and every one is in the base's tip: its work has
 * landed. Its branch, not its HEAD: a rebase stopped in its worktree leaves HEAD on the base.
 */
async function landedIn(session: SessionWithProject, tip: string): Promise<boolean> {
  const branch = await gitOut(session.worktree, [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${session.branch}^{commit}`,
  ]).catch(() => '');
  if (branch === '' || branch === session.base_commit) return false;
  return gitOut(session.worktree, ['merge-base', '--is-ancestor', branch, tip]).then(
    () => true,
    () => false,
  );
}
