/**
 * A merge's end: what happened (land.ts's outcome) made into the result people and scripts read,
 * its sessions retired after a landing or the failure told as a reply to the session that caused
 * it, and the merge's last event on the bus, made from that result (also for a merge a restart
 * reconciled, recover.ts).
 */
import type { MergeResult, MergeView } from '../api/merge.js';
import type { WorkspaceBus } from '../bus/index.js';
import { MergeConflicted, MergeFailed, MergeLanded } from '../events/workspace.js';
import { crashPoint } from '../shared/crash-points.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import { NO_CHECK } from './bisect.js';
import type { RunOutcome } from './land.js';
import { retire } from './recover.js';
import { checkReport, conflictReport } from './reports.js';
import type { MergeSessions } from './sessions.js';

const log = createLogger('merge');

/** A merge that has run: its view, its members in order, what happened, and when it finished. */
export interface MergeEnd {
  view: MergeView;
  members: SessionWithProject[];
  outcome: RunOutcome;
  durationMs: number;
  finishedAt: string;
  sessions: MergeSessions;
}

/** What every event and result of a merge says of it. */
export function mergeRef(view: MergeView) {
  return {
    mergeId: view.mergeId,
    project: view.project,
    base: view.base,
    sessions: view.sessions,
    squash: view.squash,
  };
}

/** Cleans up after a landing, or sends the failure to its session; the result, to be settled. */
export async function resultOf(end: MergeEnd): Promise<MergeResult> {
  const { view, members, outcome, durationMs, sessions } = end;
  const ref = mergeRef(view);
  const common = {
    ...ref,
    durationMs,
    finishedAt: end.finishedAt,
    files: [] as string[],
    commit: null,
    previous: null,
    culprit: null,
    replied: false,
    checkoutUpdated: null,
  };
  switch (outcome.kind) {
    case 'landed': {
      for (const member of members) {
        await retire(sessions, member, outcome.commit);
        crashPoint('merge.retired');
      }
      const names = members.map((m) => m.name).join(', ');
      const reused = outcome.check.reused;
      const checked =
        outcome.check.outcome === 'none'
          ? 'no check is configured (.baton/config.json merge.check), so none ran'
          : reused !== undefined
            ? `the check was not run again: it passed on this exact tree (${reused.tree.slice(0, 12)}) at ${reused.name}'s turn ${reused.turn}`
            : `the check passed in ${((outcome.check.durationMs ?? 0) / 1000).toFixed(1)} s`;
      return {
        ...common,
        outcome: 'landed',
        reason: 'landed',
        message: `Landed ${names} on ${view.base} at ${outcome.commit.slice(0, 12)}; ${checked}.`,
        commit: outcome.commit,
        previous: outcome.previous,
        check: outcome.check,
        checkoutUpdated: outcome.checkoutUpdated,
      };
    }
    case 'conflicted': {
      const culprit = { sessionId: outcome.culprit.id, name: outcome.culprit.name };
      const replied = await tell(
        sessions,
        outcome.culprit,
        conflictReport(outcome.culprit, view.base, outcome.files, members),
      );
      const message = `${outcome.culprit.name} conflicts with ${view.base}${members.length > 1 ? ' and the members before it' : ''} in ${outcome.files.join(', ') || 'its changes'}; nothing was landed.`;
      return {
        ...common,
        outcome: 'conflicted',
        reason: 'conflict',
        message,
        culprit,
        files: outcome.files,
        replied,
        check: NO_CHECK,
      };
    }
    case 'check_failed': {
      const culprit = { sessionId: outcome.culprit.id, name: outcome.culprit.name };
      const replied = await tell(
        sessions,
        outcome.culprit,
        checkReport(outcome.culprit, view.base, outcome.check, members, outcome.bisected),
      );
      const reason = outcome.check.outcome === 'timed_out' ? 'check_timed_out' : 'check_failed';
      const what =
        reason === 'check_timed_out'
          ? `did not finish within its time limit (${((outcome.check.durationMs ?? 0) / 1000).toFixed(1)} s) and was stopped`
          : `failed (exit ${outcome.check.exitCode ?? 'by signal'})`;
      const message = `The check \`${outcome.check.command ?? ''}\` ${what}${outcome.bisected ? `; bisected to ${outcome.culprit.name}` : ''}; nothing was landed.`;
      return { ...common, outcome: 'failed', reason, message, culprit, replied, check: outcome.check };
    }
    case 'refused': {
      return {
        ...common,
        outcome: 'failed',
        reason: 'refused',
        message: outcome.message,
        check: outcome.check,
      };
    }
  }
}

/** The merge's last event, made from its result. */
export function announce(bus: WorkspaceBus, result: MergeResult): void {
  const ref = {
    mergeId: result.mergeId,
    project: result.project,
    base: result.base,
    sessions: result.sessions,
    squash: result.squash,
  };
  const { durationMs, replied, check } = result;
  if (result.outcome === 'landed')
    bus.publish(MergeLanded, {
      ...ref,
      commit: result.commit ?? '',
      previous: result.previous ?? '',
      check,
      durationMs,
      checkoutUpdated: result.checkoutUpdated,
    });
  else if (result.outcome === 'conflicted' && result.culprit !== null)
    bus.publish(MergeConflicted, {
      ...ref,
      culprit: result.culprit,
      files: result.files,
      durationMs,
      replied,
    });
  else
    bus.publish(MergeFailed, {
      ...ref,
      reason:
        result.reason === 'check_failed' || result.reason === 'check_timed_out'
          ? result.reason
          : result.reason === 'refused'
            ? 'refused'
            : 'error',
      message: result.message,
      culprit: result.culprit,
      check,
      durationMs,
      replied,
    });
}

async function tell(sessions: MergeSessions, session: SessionWithProject, text: string): Promise<boolean> {
  try {
    await sessions.reply(session.id, text);
    return true;
  } catch (error) {
    log.info('merge report not delivered as a reply', {
      session: session.name,
      error: errorMessage(error),
    });
    return false;
  }
}
