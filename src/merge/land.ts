/**
 * One merge, start to finish, in a scratch worktree: commit each member's uncommitted work on
 * its branch, merge the members in order onto the base's tip, check the whole (bisect.ts: a
 * failing group is bisected to the member that broke it), then advance the base with a
 * compare-and-swap. Returns what happened; the caller reports it and cleans up.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRepoConfig, DEFAULT_CHECK_SECONDS, trustState } from '../projects/index.js';
import { crashPoint } from '../shared/crash-points.js';
import { errorMessage, SessionStateError } from '../shared/errors.js';
import type { SessionWithProject } from '../store/sessions.js';
import { checkGroup, NO_CHECK, type Check, type ReusedCheck } from './bisect.js';
import type { CheckCommand } from './check.js';
import {
  advanceBase,
  branchTip,
  checkoutOf,
  commitSessionWork,
  DirtyCheckoutError,
  dirtyFiles,
  identityArgs,
  isAncestor,
  mergeInto,
  withScratchWorktree,
} from './git.js';

export type RunOutcome =
  | {
      kind: 'landed';
      commit: string;
      previous: string;
      check: Check;
      checkoutUpdated: string | null;
      /** Each member's merged tip, and the commit its step made (the tip, a merge or a squash), in order. */
      landedMembers: { tip: string; head: string }[];
    }
  | { kind: 'conflicted'; culprit: SessionWithProject; files: string[]; baseCommit: string }
  | { kind: 'check_failed'; culprit: SessionWithProject; check: Check; bisected: boolean }
  | { kind: 'refused'; message: string; check: Check };

export interface RunInput {
  mergeId: string;
  home: string;
  root: string;
  base: string;
  members: SessionWithProject[];
  squash: boolean;
  env: NodeJS.ProcessEnv;
  onStarted(baseCommit: string): void;
  onChecking(command: string, commit: string, members: number): void;
  /** The passing run of this command on exactly this tree Baton made at a turn's end, if any. */
  reuse?: (tree: string, command: string) => ReusedCheck | undefined;
  /** Checked, and about to move the base: journaled before it moves (decision 166). */
  onChecked?(move: { previous: string; commit: string; check: Check; checkout: string | null }): void;
  /** The base has moved. */
  onAdvanced?(): void;
}

/** Times the base may move under a merge before it gives up. */
const ATTEMPTS = 3;

export async function runMerge(input: RunInput): Promise<RunOutcome> {
  const { root, base } = input;
  let config;
  try {
    config = loadRepoConfig(root);
  } catch (error) {
    return { kind: 'refused', message: errorMessage(error), check: NO_CHECK };
  }
  // Changed while the merge waited in the queue: the new command is not run untrusted.
  const trust = trustState(input.home, root, config);
  if (!trust.trusted)
    return {
      kind: 'refused',
      message: `The commands in ${trust.file} changed since you trusted them; nothing ran. Run \`baton trust\` in ${root} to read and trust them, then merge again.`,
      check: NO_CHECK,
    };
  const check = config.merge?.check;
  const timeoutSeconds = config.merge?.checkTimeoutSeconds ?? DEFAULT_CHECK_SECONDS;
  let started = false;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const baseTip = await branchTip(root, base);
    if (baseTip === undefined)
      return {
        kind: 'refused',
        message: `The base branch ${base} no longer exists in ${root}; recreate it, or set "merge": {"base": "…"} in .baton/config.json.`,
        check: NO_CHECK,
      };
    if (!started) {
      started = true;
      input.onStarted(baseTip);
    }
    // Said before any work: a checkout that would stop the landing stops the merge.
    const checkout = await checkoutOf(root, base);
    if (checkout !== undefined) {
      const dirty = await dirtyFiles(checkout);
      if (dirty.length > 0)
        return {
          kind: 'refused',
          message: new DirtyCheckoutError(checkout, base, dirty).message,
          check: NO_CHECK,
        };
    }
    const tips: string[] = [];
    for (const member of input.members) {
      const tip = existsSync(member.worktree)
        ? (
            await commitSessionWork({
              worktree: member.worktree,
              branch: member.branch,
              name: member.name,
              prompt: member.prompt,
            })
          ).tip
        : await branchTip(root, member.branch);
      if (tip === undefined)
        return {
          kind: 'refused',
          message: `The branch ${member.branch} of ${member.name} is gone; there is nothing to merge.`,
          check: NO_CHECK,
        };
      if (await isAncestor(root, tip, baseTip))
        return {
          kind: 'refused',
          message: `${member.name} has nothing to merge: its work is already on ${base}.`,
          check: NO_CHECK,
        };
      tips.push(tip);
    }
    const merged = await withScratchWorktree(
      root,
      join(input.home, 'merges', input.mergeId),
      baseTip,
      (scratch) => mergeAndCheck(input, scratch, tips, check, timeoutSeconds, baseTip),
    );
    if (merged.kind !== 'ready') return merged;
    input.onChecked?.({
      previous: baseTip,
      commit: merged.commit,
      check: merged.check,
      checkout: checkout ?? null,
    });
    crashPoint('merge.checked');
    try {
      const advanced = await advanceBase(root, base, baseTip, merged.commit);
      if (advanced === 'moved') continue;
    } catch (error) {
      if (error instanceof SessionStateError)
        return { kind: 'refused', message: error.message, check: merged.check };
      throw error;
    }
    // The window of the old fault: the base moved, and nothing yet says so but git.
    crashPoint('merge.base-moved');
    input.onAdvanced?.();
    crashPoint('merge.advanced');
    return {
      kind: 'landed',
      commit: merged.commit,
      previous: baseTip,
      check: merged.check,
      checkoutUpdated: checkout ?? null,
      landedMembers: tips.map((tip, index) => ({ tip, head: merged.heads[index] ?? merged.commit })),
    };
  }
  return {
    kind: 'refused',
    message: `${base} moved ${ATTEMPTS} times while this merge ran; nothing was landed. Merge again when it is quieter.`,
    check: NO_CHECK,
  };
}

type Merged =
  { kind: 'ready'; commit: string; check: Check; heads: string[] } | Exclude<RunOutcome, { kind: 'landed' }>;

async function mergeAndCheck(
  input: RunInput,
  scratch: string,
  tips: string[],
  check: CheckCommand | undefined,
  timeoutSeconds: number,
  baseTip: string,
): Promise<Merged> {
  const identity = await identityArgs(scratch);
  const heads: string[] = [];
  for (const [index, member] of input.members.entries()) {
    const step = await mergeInto(scratch, tips[index]!, {
      squash: input.squash,
      message: commitMessage(member, input.base, input.squash),
      identity,
    });
    if (!step.ok) return { kind: 'conflicted', culprit: member, files: step.files, baseCommit: baseTip };
    heads.push(step.head);
  }
  const commit = heads[heads.length - 1]!;
  if (check === undefined) return { kind: 'ready', commit, check: NO_CHECK, heads };
  const verdict = await checkGroup({
    scratch,
    heads,
    command: check,
    timeoutSeconds,
    env: input.env,
    reuse: input.reuse,
    onChecking: (command, commit, members) => input.onChecking(command, commit, members),
  });
  if (verdict.passed) return { kind: 'ready', commit, check: verdict.check, heads };
  return {
    kind: 'check_failed',
    culprit: input.members[verdict.culprit]!,
    check: verdict.check,
    bisected: verdict.bisected,
  };
}

/** A landed session's commit message: its prompt's first line, then which session it was. */
export function commitMessage(member: SessionWithProject, base: string, squash: boolean): string {
  const firstLine =
    member.prompt
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? member.name;
  const subject = squash ? firstLine : `Merge session ${member.name} into ${base}: ${firstLine}`;
  const short = subject.length > 100 ? `${subject.slice(0, 99)}…` : subject;
  return `${short}\n\nBaton session ${member.name} (branch ${member.branch}, agent ${member.agent}).${squash ? `\n\nPrompt:\n${member.prompt}` : ''}`;
}
