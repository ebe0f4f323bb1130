/**
 * The merge queue: merges run one at a time per repository, in the order asked, each visible
 * with its position while it waits. A request is checked when it is made (unknown or running
 * sessions, a missing base, a dirty checkout are refused at once, changing nothing); the merge
 * itself (land.ts, bisect.ts) then reports on the bus — merge.queued, started, checking, then
 * landed, conflicted or failed — and a failure goes back to the session that caused it as a reply
 * (results.ts). A landing is told to provenance (landed-work.ts).
 */
import { join } from 'node:path';
import type { MergePlanView, MergeResult, MergeView, PrView } from '../api/merge.js';
import type { WorkspaceBus } from '../bus/index.js';
import { MergeQueued, MergeStarted, MergeChecking } from '../events/workspace.js';
import { loadRepoConfig, requireTrusted } from '../projects/index.js';
import { crashPoint } from '../shared/crash-points.js';
import { newId } from '../shared/ids.js';
import { errorMessage, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import { MergeJournal } from '../store/merge-journal.js';
import type { SessionWithProject } from '../store/sessions.js';
import { mergePlan, plannedOrder } from './plan-view.js';
import { openPullRequest } from './pull-request.js';
import { NO_CHECK, type ReusedCheck } from './bisect.js';
import { runMerge, type RunOutcome } from './land.js';
import { reconcile, retire } from './recover.js';
import { announce, mergeRef, resultOf } from './results.js';
import { noteLanding, noteRecovered, type LandedWork } from './landed-work.js';
import { baseOf, requireMergeable, whileAllHeld } from './sessions.js';
import type { MergeSessions } from './sessions.js';
import {
  branchTip,
  checkoutOf,
  DirtyCheckoutError,
  dirtyFiles,
  isAncestor,
  removeStaleScratches,
} from './git.js';
import { git } from '../worktrees/index.js';

const log = createLogger('merge');

export interface MergeServiceOptions {
  home: string;
  sessions: MergeSessions;
  bus: WorkspaceBus;
  /** Where each merge's intent, steps and result are journaled (the bus's database). */
  db: Db;
  /** The environment checks and gh run in (the supervisor's). */
  env: NodeJS.ProcessEnv;
  clock?: () => Date;
  /**
   * Told of each landing before its sessions are retired, to note on the landed commits which
   * session's turn wrote which lines (src/provenance). Its failure is logged; the landing stands.
   */
  onLanded?: (landing: LandedWork) => Promise<void>;
  /**
   * A passing run of `command` Baton already made on exactly `tree` at a session's turn end
   * (src/provenance): the merge reuses it instead of running the check again (decision 291).
   */
  reuse?: (tree: string, command: string) => ReusedCheck | undefined;
}

interface Job {
  view: MergeView;
  members: SessionWithProject[];
  /** How members were brought from other machines, said with the result. */
  notes: string[];
  done: Promise<MergeResult>;
}

export class MergeService {
  private readonly jobs: Job[] = [];
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly clock: () => Date;
  private readonly journal: MergeJournal;

  constructor(private readonly options: MergeServiceOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.journal = new MergeJournal(options.db, this.clock);
  }

  /**
   * Whether the session is a member of a merge not yet ended: queued or running here, or left
   * unfinished in the journal by a killed supervisor and not yet finished by `recover` (decision
   * 405). Keep-fresh leaves such a session's branch to its merge.
   */
  merging(sessionId: string): boolean {
    if (this.jobs.some((job) => job.members.some((m) => m.id === sessionId))) return true;
    return this.journal
      .unfinished()
      .some((row) =>
        (JSON.parse(row.sessions_json) as { sessionId: string }[]).some((m) => m.sessionId === sessionId),
      );
  }

  /**
   * After a start: removes the scratch worktrees of merges a killed supervisor left half done,
   * and finishes each merge its journal holds unfinished by what its base shows (recover.ts).
   */
  async recover(): Promise<void> {
    const removed = await removeStaleScratches(join(this.options.home, 'merges'));
    if (removed > 0) log.info('removed scratch worktrees of interrupted merges', { removed });
    for (const row of this.journal.unfinished()) {
      const found = await reconcile(row, this.options.sessions, this.clock());
      const { result } = found;
      if (found.kind === 'landed') {
        // Noted before its sessions are retired, while their branches still say what they landed
        // (decision 293): killed between the base's move and the note, the landing gets it now.
        await noteRecovered(this.options.onLanded, row, found.members, result.commit!);
        for (const member of found.members) await retire(this.options.sessions, member, result.commit!, true);
      }
      this.settle(result, () => announce(this.options.bus, result));
      log.info('an interrupted merge was reconciled', {
        mergeId: row.merge_id,
        step: row.step,
        outcome: found.kind,
      });
    }
  }

  /** Pushes a session's branch and opens its pull request (pull-request.ts). */
  async pullRequest(ref: string, cwd?: string): Promise<PrView> {
    // Another machine's session is handed over and brought here first, as for a merge.
    const { brought } = await this.options.sessions.prepare([ref], cwd);
    try {
      return await openPullRequest({
        ref,
        cwd,
        sessions: this.options.sessions,
        bus: this.options.bus,
        env: this.options.env,
      });
    } finally {
      await this.options.sessions.letGo(brought);
    }
  }

  /** The landing order of a repository's ready sessions (plan-view.ts). */
  plan(where: { cwd?: string | undefined; project?: string | undefined }): Promise<MergePlanView> {
    return mergePlan(this.options.sessions, where);
  }

  /** Waiting and running merges, each with its position in its repository's queue. */
  queue(): MergeView[] {
    return this.jobs.map((job) => ({ ...job.view, position: this.position(job) }));
  }

  /** Finished merges, newest first, from the journal: a restart keeps them. */
  recentResults(): MergeResult[] {
    return this.journal.results() as MergeResult[];
  }

  /**
   * Queues `refs` (resolved from `cwd`) to land as one group in this order. Returns at once with
   * the queued merge and the sequence number of its `merge.queued` event; `result` settles when
   * it has landed or failed.
   */
  async enqueue(
    refs: string[],
    options: { squash: boolean; planned?: boolean; cwd?: string | undefined },
  ): Promise<{ view: MergeView; seq: number; result: Promise<MergeResult> }> {
    const { notes, brought } = await this.options.sessions.prepare(refs, options.cwd);
    try {
      return await this.enqueueResolved(refs, options, notes);
    } catch (error) {
      await this.options.sessions.letGo(brought);
      throw error;
    }
  }

  private async enqueueResolved(
    refs: string[],
    options: { squash: boolean; planned?: boolean; cwd?: string | undefined },
    notes: string[],
  ): Promise<{ view: MergeView; seq: number; result: Promise<MergeResult> }> {
    let members = refs.map((ref) => this.options.sessions.resolve(ref, options.cwd));
    const ids = new Set(members.map((m) => m.id));
    if (ids.size !== members.length)
      throw new InvalidInputError('A session is named twice in this merge; name each once.');
    const root = members[0]!.project_root;
    const other = members.find((m) => m.project_root !== root);
    if (other !== undefined)
      throw new InvalidInputError(
        `${members[0]!.name} and ${other.name} belong to different repositories; merge them separately.`,
      );
    for (const member of members) requireMergeable(member, this.options.sessions);
    const base = baseOf(members);
    const baseTip = await this.precheck(root, base, members);
    if (options.planned === true && members.length > 1) members = await plannedOrder(members, baseTip);
    // After the last await, so two requests for one session cannot both pass.
    for (const member of members) {
      const queued = this.jobs.find((job) => job.members.some((m) => m.id === member.id));
      if (queued !== undefined)
        throw new SessionStateError(
          `${member.name} is already in the merge queue (merge ${queued.view.mergeId}); wait for it.`,
        );
    }

    const view: MergeView = {
      mergeId: newId().slice(0, 12),
      project: members[0]!.project_name,
      root,
      base,
      sessions: members.map((m) => ({ sessionId: m.id, name: m.name })),
      squash: options.squash,
      state: 'queued',
      position: 1,
      queuedAt: this.clock().toISOString(),
    };
    const job = { view, members, notes } as Job;
    this.jobs.push(job);
    view.position = this.position(job);
    // The intent, on record before anything of the merge can be seen.
    this.journal.begin({ ...mergeRef(view), root, queuedAt: view.queuedAt });
    const event = this.options.bus.publish(MergeQueued, { ...mergeRef(view), position: view.position });
    crashPoint('merge.queued');
    const previous = this.chains.get(root) ?? Promise.resolve();
    job.done = previous.then(() => this.run(job));
    this.chains.set(
      root,
      job.done.catch(() => undefined),
    );
    return { view: { ...view }, seq: event.seq, result: job.done };
  }

  /** Lands an ordered list of sessions as one group and resolves with the result (for groups built elsewhere). */
  async mergeGroup(
    refs: string[],
    options: { squash?: boolean; planned?: boolean; cwd?: string } = {},
  ): Promise<MergeResult> {
    const { result } = await this.enqueue(refs, {
      squash: options.squash ?? false,
      planned: options.planned ?? false,
      cwd: options.cwd,
    });
    return result;
  }

  /** Refusals that need no merge: said before anything is queued or changed. */
  private async precheck(root: string, base: string, members: SessionWithProject[]): Promise<string> {
    // The merge check is the repository's command: it runs only once trusted (decision 161).
    requireTrusted(this.options.home, root, loadRepoConfig(root));
    const tip = await branchTip(root, base);
    if (tip === undefined) {
      throw new InvalidInputError(
        `The base branch ${base} does not exist in ${root} (deleted, or the session started from a tag or commit); recreate it, or set "merge": {"base": "<branch>"} in .baton/config.json.`,
        { reason: 'no_base', base },
      );
    }
    const checkout = await checkoutOf(root, base);
    if (checkout !== undefined) {
      const dirty = await dirtyFiles(checkout);
      if (dirty.length > 0) throw new DirtyCheckoutError(checkout, base, dirty);
    }
    for (const member of members) {
      const branch = await branchTip(root, member.branch);
      if (branch === undefined)
        throw new SessionStateError(
          `The branch ${member.branch} of ${member.name} is gone; there is nothing to merge.`,
        );
      const status = await git(member.worktree, ['status', '--porcelain', '--untracked-files=all'], {
        okExitCodes: [128],
      }).catch(() => undefined);
      const uncommitted = status !== undefined && status.exitCode === 0 && status.stdout.trim() !== '';
      if (!uncommitted && (await isAncestor(root, branch, tip))) {
        throw new SessionStateError(
          `${member.name} has nothing to merge: its branch ${member.branch} has no commits beyond ${base} and no uncommitted work.`,
          { reason: 'nothing_to_merge' },
        );
      }
    }
    return tip;
  }

  private position(job: Job): number {
    return this.jobs.filter((j) => j.view.root === job.view.root).indexOf(job) + 1;
  }

  private async run(job: Job): Promise<MergeResult> {
    const started = performance.now();
    const { view } = job;
    const ref = mergeRef(view);
    view.state = 'merging';
    let outcome: RunOutcome;
    try {
      // Held while it runs (decision 401): keep-fresh's rebase or a reply asked meanwhile waits, one
      // already running ends first; then fresh rows, as a member may have been started again or
      // removed while it waited.
      outcome = await whileAllHeld(
        this.options.sessions,
        job.members.map((m) => m.id),
        () => {
          const members = job.members.map((m) => this.options.sessions.get(m.id) ?? m);
          for (const member of members) requireMergeable(member, this.options.sessions);
          return runMerge({
            mergeId: view.mergeId,
            home: this.options.home,
            root: view.root,
            base: view.base,
            members,
            squash: view.squash,
            env: this.options.env,
            ...(this.options.reuse === undefined ? {} : { reuse: this.options.reuse }),
            onStarted: (baseCommit) => {
              this.journal.merging(view.mergeId, baseCommit);
              this.options.bus.publish(MergeStarted, { ...ref, baseCommit });
              crashPoint('merge.started');
            },
            onChecking: (command, commit, count) => {
              view.state = 'checking';
              this.options.bus.publish(MergeChecking, { ...ref, command, commit, members: count });
            },
            onChecked: (move) => this.journal.checked(view.mergeId, move),
            onAdvanced: () => this.journal.advanced(view.mergeId),
          });
        },
      );
    } catch (error) {
      const known = error instanceof InvalidInputError || error instanceof SessionStateError;
      if (!known) log.error('merge failed', { mergeId: view.mergeId, error: errorMessage(error) });
      outcome = {
        kind: 'refused',
        message: known ? error.message : `The merge failed: ${errorMessage(error)}`,
        check: NO_CHECK,
      };
    }
    if (outcome.kind === 'landed') await noteLanding(this.options.onLanded, job.view, job.members, outcome);
    const durationMs = Math.round(performance.now() - started);
    const reported = await resultOf({
      view: job.view,
      members: job.members,
      outcome,
      durationMs,
      finishedAt: this.clock().toISOString(),
      sessions: this.options.sessions,
    });
    const result =
      job.notes.length === 0
        ? reported
        : { ...reported, message: `${reported.message} ${job.notes.join(' ')}` };
    // The last event and the journal's result together, or neither: a restart finishes it once.
    this.settle(result, () => announce(this.options.bus, result));
    crashPoint('merge.finished');
    this.jobs.splice(this.jobs.indexOf(job), 1);
    // After the result is on record: a client told of the landing reads it at once.
    await this.options.sessions.letGo(job.members.map((m) => m.id));
    return result;
  }

  /** Records `result` as the merge's end in the journal and publishes its event with `publish`, in one transaction. */
  private settle(result: MergeResult, publish: () => void): void {
    const { db, bus } = this.options;
    try {
      db.transaction(() => {
        publish();
        this.journal.finish(result.mergeId, result);
      })();
    } catch (error) {
      bus.discard();
      // Said anyway: whoever waits on the merge hears its end; a restart may say it again.
      log.error('merge result not journaled', { mergeId: result.mergeId, error: errorMessage(error) });
      publish();
      return;
    }
    bus.release();
  }
}
