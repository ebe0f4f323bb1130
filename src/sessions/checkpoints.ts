/**
 * A session's checkpoints (decision 160, "A command that discards uncommitted work runs after a
 * checkpoint"). In the host, `checkpointing` wraps the gate every agent adapter consults before a
 * call runs, in every permission mode: a command that would discard the worktree's uncommitted
 * work (src/policy/discards.ts) is let through only after the work is kept under
 * `refs/baton/checkpoints/<session>/<n>`, and the session's log says so (`work.checkpointed`).
 * In the supervisor, `SessionCheckpoints` lists and restores them for the CLI and the API.
 */
import { discardsWork, type Disk } from '../policy/index.js';
import type { EventBody } from '../events/index.js';
import { errorMessage, SessionStateError } from '../shared/errors.js';
import {
  listCheckpoints,
  restoreCheckpoint,
  takeCheckpoint,
  type CheckpointInfo,
} from '../worktrees/index.js';
import type { GateCall, GateVerdict, ToolGate } from '../agents/index.js';
import { existsSync } from 'node:fs';

/** The rule an approval names when the work could not be kept: the user decides whether to run it anyway. */
export const CHECKPOINT_FAILED = 'checkpoint-failed';

export function checkpointing(
  gate: ToolGate,
  session: { id: string; worktree: string; home: string; disk?: Disk },
  record: (body: EventBody) => void,
): ToolGate {
  return (call: GateCall): GateVerdict => {
    const verdict = gate(call);
    if (verdict.action === 'block' || call.kind !== 'run' || call.command === undefined) return verdict;
    const discard = discardsWork(call.command, session.worktree, session.home, session.disk);
    if (discard === undefined) return verdict;
    try {
      const { checkpoint, fresh } = takeCheckpoint(session.worktree, session.id, discard.command);
      record({
        type: 'work.checkpointed',
        checkpoint: checkpoint.name,
        ref: checkpoint.ref,
        commit: checkpoint.commit,
        command: call.command,
        why: discard.why,
        fresh,
      });
      return verdict;
    } catch (error) {
      // Nothing kept: the command is not run silently. The user is asked, in every mode.
      return {
        action: 'ask',
        rule: CHECKPOINT_FAILED,
        why: `this command ${discard.why}, and Baton could not keep a checkpoint of the work first (${errorMessage(error)})`,
      };
    }
  };
}

export interface CheckpointSession {
  id: string;
  name: string;
  worktree: string;
}

/** The supervisor's side: a live session's checkpoints, listed and restored into its worktree. */
export class SessionCheckpoints {
  list(session: CheckpointSession): Promise<CheckpointInfo[]> {
    return listCheckpoints(this.worktreeOf(session), session.id);
  }

  restore(
    session: CheckpointSession,
    name: string,
  ): Promise<{ checkpoint: CheckpointInfo; before: CheckpointInfo }> {
    return restoreCheckpoint(this.worktreeOf(session), session.id, name);
  }

  private worktreeOf(session: CheckpointSession): string {
    if (!existsSync(session.worktree))
      throw new SessionStateError(
        `Session ${session.name} has no worktree any more; its uncommitted work is in a snapshot: \`baton snapshots\` lists them.`,
      );
    return session.worktree;
  }
}
