/** The cluster layer's named errors; codes map to HTTP statuses and exit codes in src/shared/errors.ts. */
import { BatonError, type ErrorCode } from '../shared/errors.js';

export { redact, StoreUrlError, WorkerNameError } from '../shared/cluster-settings.js';

/** The database could not be reached or refused us; nothing was written. */
export class StoreUnreachableError extends BatonError {
  /** `source`: where the URL came from (`--store`, BATON_STORE, config.json's "store"), when known. */
  constructor(
    readonly target: string,
    readonly reason: string,
    readonly source?: string,
  ) {
    super(
      'store_unreachable',
      `Cannot reach the PostgreSQL store at ${target} (${reason})${source === undefined ? '' : `; its URL came from ${source}`}. Check that the server is running and the URL, user and password are right.`,
      source === undefined ? { target, reason } : { target, reason, source },
    );
  }
}

/** The worker is gone, or registered again since (a newer incarnation): it holds no session. */
export class WorkerNotRegisteredError extends BatonError {
  constructor(
    readonly worker: string,
    readonly incarnation?: number,
  ) {
    super(
      'not_found',
      incarnation === undefined
        ? `No worker named "${worker}" is registered; register it again.`
        : `No worker named "${worker}" is registered as incarnation ${incarnation} (it was deregistered or registered again since): stop its sessions and register it again.`,
      { worker, incarnation },
    );
  }
}
/** A command for another machine was not answered in time. */
export class RemoteCommandTimeoutError extends BatonError {
  constructor(
    readonly machine: string,
    readonly ms: number,
    readonly taken: boolean,
  ) {
    super(
      'host_unresponsive',
      taken
        ? `The machine "${machine}" took the command but did not answer within ${ms} ms; it may still take effect. Check the session again before repeating it.`
        : `The machine "${machine}" did not take the command within ${ms} ms, so it was withdrawn and will not run: the machine may be down (\`baton workers\` shows its last heartbeat).`,
      { machine, ms, taken },
    );
  }
}

/** The owning machine ran a command and its handler refused or failed: its message, and its code when it had one. */
export class RemoteCommandFailedError extends BatonError {
  constructor(
    readonly machine: string,
    code: ErrorCode,
    message: string,
  ) {
    super(code, message, { machine });
  }
}

/** A dispatch placed on another machine that no machine has started yet: it stays queued. */
export class DispatchQueuedError extends BatonError {
  constructor(
    readonly on: string,
    readonly ms: number,
  ) {
    super(
      'host_unresponsive',
      `No machine started the session within ${ms} ms; it stays queued${on === 'any' ? '' : ` for "${on}"`} and runs when ${on === 'any' ? 'a machine frees' : 'that machine has'} a slot (\`baton workers\` shows the machines and their free slots, \`baton ls\` the session once it runs).`,
      { on, ms },
    );
  }
}

/** `--on` names a machine that is not serving the workspace. */
export class MachineNotFoundError extends BatonError {
  constructor(
    readonly machine: string,
    known: string[],
  ) {
    super(
      'not_found',
      `No machine named "${machine}" serves this workspace (${known.length === 0 ? 'none is registered' : `registered: ${known.join(', ')}`}): check the name with \`baton workers\`, or use --on any.`,
      { key: 'on', value: machine, known },
    );
  }
}
