/**
 * Following the supervisor's streams from the CLI, across supervisor restarts: a cut stream is
 * picked up again from the last event seen (starting the supervisor if need be), so nothing is
 * repeated or skipped.
 */
import type { BatonEvent } from '../events/index.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import { SupervisorUnreachableError } from '../shared/errors.js';
import type { SupervisorClient } from './client.js';
import { client } from './connect.js';
import type { Context } from './context.js';

const MAX_RECONNECTS = 3;

async function resiliently(ctx: Context, first: SupervisorClient, signal: AbortSignal, follow: (api: SupervisorClient, seen: () => void) => Promise<void>): Promise<void> {
  let api = first;
  for (let failures = 0; ; ) {
    try {
      await follow(api, () => (failures = 0));
      return;
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof SupervisorUnreachableError) || ++failures > MAX_RECONNECTS) throw error;
      ctx.err.write(`(${error.message} Reconnecting…)\n`);
      api = await client(ctx);
    }
  }
}

/** One session's events after `lastSeq()`, replayed then live, until `signal` aborts. */
export function followSession(
  ctx: Context,
  api: SupervisorClient,
  ref: string,
  lastSeq: () => number,
  onEvent: (event: BatonEvent) => void,
  signal: AbortSignal,
  onLive?: () => void,
): Promise<void> {
  return resiliently(ctx, api, signal, (current, seen) =>
    current.follow(ref, lastSeq(), (event) => {
      seen();
      onEvent(event);
    }, signal, onLive),
  );
}

/** The workspace's events after `lastSeq()`, replayed then live, until `signal` aborts. */
export function followWorkspace(ctx: Context, api: SupervisorClient, lastSeq: () => number, onEvent: (event: WorkspaceEvent) => void, signal: AbortSignal): Promise<void> {
  return resiliently(ctx, api, signal, (current, seen) =>
    current.followWorkspace(lastSeq(), (event) => {
      seen();
      onEvent(event);
    }, signal),
  );
}
