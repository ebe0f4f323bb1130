/**
 * Following the supervisor's streams from the CLI, across supervisor restarts: a cut stream is
 * picked up again from the last event seen (starting the supervisor if need be), so nothing is
 * repeated or skipped.
 */
import { existsSync } from 'node:fs';
import type { BatonEvent } from '../events/index.js';
import type { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import { SupervisorUnreachableError } from '../shared/errors.js';
import { homePaths } from '../shared/paths.js';
import type { SupervisorClient } from './client.js';
import { client } from './connect.js';
import type { Context } from './context.js';

const MAX_RECONNECTS = 3;

async function resiliently<T>(
  ctx: Context,
  first: SupervisorClient,
  signal: AbortSignal,
  follow: (api: SupervisorClient, seen: () => void) => Promise<T>,
): Promise<T | undefined> {
  let api = first;
  for (let failures = 0; ;) {
    try {
      return await follow(api, () => (failures = 0));
    } catch (error) {
      if (signal.aborted) return undefined;
      if (!(error instanceof SupervisorUnreachableError) || ++failures > MAX_RECONNECTS) throw error;
      // A supervisor stopped on purpose removes its file; one that crashed leaves it. Following
      // must not start again what `baton daemon stop` just stopped.
      if (!existsSync(homePaths(ctx.home).supervisorJson)) {
        ctx.err.write(
          '(The supervisor was stopped; stopped following. Run the command again to start it.)\n',
        );
        return undefined;
      }
      ctx.err.write(`(${error.message} Reconnecting…)\n`);
      api = await client(ctx);
    }
  }
}

/** One session's events after `lastSeq()`, replayed then live, until `signal` aborts or the session ends (the answer says how). */
export function followSession(
  ctx: Context,
  api: SupervisorClient,
  ref: string,
  lastSeq: () => number,
  onEvent: (event: BatonEvent) => void,
  signal: AbortSignal,
  onLive?: () => void,
): Promise<'completed' | 'removed' | undefined> {
  return resiliently(ctx, api, signal, (current, seen) =>
    current.follow(
      ref,
      lastSeq(),
      (event) => {
        seen();
        onEvent(event);
      },
      signal,
      onLive,
    ),
  );
}

/**
 * The workspace's events after `lastSeq()`, replayed then live, until `signal` aborts; with
 * `onRelayed`, the other machines' too (`lastSeq()` must then count them: they share the sequence).
 */
export async function followWorkspace(
  ctx: Context,
  api: SupervisorClient,
  lastSeq: () => number,
  onEvent: (event: WorkspaceEvent) => void,
  signal: AbortSignal,
  onRelayed?: (event: RelayedWorkspaceEvent) => void,
): Promise<void> {
  await resiliently(ctx, api, signal, (current, seen) =>
    current.followWorkspace(
      lastSeq(),
      (event) => {
        seen();
        onEvent(event);
      },
      signal,
      onRelayed === undefined
        ? undefined
        : (event) => {
            seen();
            onRelayed(event);
          },
    ),
  );
}
