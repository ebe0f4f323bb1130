/**
 * The board's one live feed: `GET /api/stream`, the same stream the page reads. A cut stream
 * (the supervisor killed or restarted) is opened again after the last workspace event seen, so
 * nothing is lost or repeated, and its fresh snapshot replaces the sessions. The supervisor is
 * started again if it crashed, as `logs -f` does (src/cli/follow.ts), but not if it was stopped
 * on purpose: then the board says so and waits for the user.
 */
import { existsSync } from 'node:fs';
import { requestLine, streamMessage } from '../api/client.js';
import type { SupervisorClient } from '../cli/client.js';
import { client } from '../cli/connect.js';
import type { Context } from '../cli/context.js';
import { plainDeep } from '../cli/terminal.js';
import { Coalesced } from '../shared/coalesce.js';
import { SupervisorUnreachableError } from '../shared/errors.js';
import { homePaths } from '../shared/paths.js';
import { applyUpdate, emptyBoard, type BoardData, type StreamUpdate } from './model.js';

const ROUTE = 'GET /api/stream';
/** Pauses between attempts while the supervisor comes back: short at first, then at most this. */
const RETRY_MS = [100, 250, 500, 1000, 2000] as const;

export interface FeedOptions {
  ctx: Context;
  signal: AbortSignal;
  onUpdate: (update: StreamUpdate) => void;
  /** The last workspace event the board holds; a reconnect resumes after it. */
  lastSeq(): number;
  /** Waits before the next attempt; a test or bench may pass its own. */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called with each client connected, so actions use the live supervisor's port. */
  onClient?: (api: SupervisorClient) => void;
  /** A connection already under way, taken for the first attempt (so the supervisor is not started twice). */
  connecting?: Promise<SupervisorClient>;
}

/**
 * The feed folded into the board's data, started before the screen that shows it: `baton` opens
 * it before Ink and React are loaded, so the supervisor's snapshot travels while they compile and
 * the first frame already lists the sessions (decision 421). What arrives before the screen follows
 * it is kept in `board`; `follow` hands that over, then every change.
 */
export class StartedFeed {
  board: BoardData;
  private readonly controller = new AbortController();
  private onBoard: ((board: BoardData) => void) | undefined;
  private onClient: ((api: SupervisorClient) => void) | undefined;
  private api: SupervisorClient | undefined;

  /**
   * `from`: the board a restarted feed goes on from (its workspace feed and position kept);
   * `connecting`: a connection already under way.
   */
  constructor(ctx: Context, from: BoardData = emptyBoard, connecting?: Promise<SupervisorClient>) {
    this.board = from;
    void runFeed({
      ctx,
      ...(connecting === undefined ? {} : { connecting }),
      signal: this.controller.signal,
      onUpdate: (update) => {
        this.board = applyUpdate(this.board, update);
        this.onBoard?.(this.board);
      },
      lastSeq: () => this.board.lastSeq,
      onClient: (api) => {
        this.api = api;
        this.onClient?.(api);
      },
    });
  }

  /** Told the board as it stands now and on each change, and each client connected; the returned function stops the feed. */
  follow(onBoard: (board: BoardData) => void, onClient: (api: SupervisorClient) => void): () => void {
    this.onBoard = onBoard;
    this.onClient = onClient;
    if (this.api !== undefined) onClient(this.api);
    onBoard(this.board);
    return () => this.stop();
  }

  stop(): void {
    this.controller.abort();
  }
}

/** Follows the stream until `signal` aborts, or until the supervisor was stopped on purpose. */
export async function runFeed(options: FeedOptions): Promise<void> {
  const { ctx, signal } = options;
  // Names, questions and activity are an agent's words: drawn as text, never obeyed (decision 400).
  const onUpdate = (update: StreamUpdate): void => options.onUpdate(plainDeep(update));
  const pause = options.pause ?? wait;
  let positioned = false;
  let connecting = options.connecting;
  for (let failures = 0; !signal.aborted;) {
    try {
      const api = await (connecting ?? client(ctx));
      connecting = undefined;
      options.onClient?.(api);
      if (!positioned) {
        // Where the bus stands now: the stream then starts there, and a reconnect later resumes from what was seen.
        const { lastSeq } = await api.call('GET /api/workspace/events', {
          query: { after: Number.MAX_SAFE_INTEGER, limit: 1 },
        });
        onUpdate({ kind: 'position', lastSeq });
        positioned = true;
      }
      const { path } = requestLine(ROUTE, { query: { after: options.lastSeq() } });
      const badges = conflictBadges(api, onUpdate);
      await api.stream(path, signal, (message) => {
        failures = 0;
        deliver(message, onUpdate);
        // The radar's badges, as the page fetches them: after each snapshot and each radar event.
        if (
          message.event === 'snapshot' ||
          (message.event === 'workspace' && message.data.includes('"type":"radar.'))
        )
          badges();
        return false;
      });
    } catch (error) {
      if (signal.aborted) return;
      const why = error instanceof Error ? error.message : String(error);
      if (error instanceof SupervisorUnreachableError && !existsSync(homePaths(ctx.home).supervisorJson)) {
        onUpdate({ kind: 'status', status: { kind: 'stopped', why: 'The supervisor was stopped.' } });
        return;
      }
      onUpdate({ kind: 'status', status: { kind: 'reconnecting', why } });
      await pause(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)] ?? 2000, signal);
    }
  }
}

function deliver(message: { event: string; data: string }, onUpdate: (update: StreamUpdate) => void): void {
  switch (message.event) {
    case 'snapshot':
      onUpdate({ kind: 'snapshot', sessions: streamMessage(ROUTE, 'snapshot', message.data).sessions });
      return;
    case 'session':
      onUpdate({ kind: 'session', session: streamMessage(ROUTE, 'session', message.data) });
      return;
    case 'removed':
      onUpdate({ kind: 'removed', id: streamMessage(ROUTE, 'removed', message.data).id });
      return;
    case 'workspace':
      onUpdate({ kind: 'workspace', event: streamMessage(ROUTE, 'workspace', message.data) });
      return;
    case 'relayed':
      // Another machine's: shown in the feed, and its seq is the same cursor as this machine's.
      onUpdate({ kind: 'workspace', event: streamMessage(ROUTE, 'relayed', message.data) });
      return;
    default:
      // A message this board does not know yet (a newer supervisor): nothing to show.
      return;
  }
}

/** Fetches the badges; a burst of radar events while one fetch is out makes one more, not one each. */
function conflictBadges(api: SupervisorClient, onUpdate: (update: StreamUpdate) => void): () => void {
  const fetches = new Coalesced(
    () =>
      api
        .call('GET /api/conflicts/badges')
        .then(({ badges }) => onUpdate({ kind: 'conflicts', badges }))
        .catch(() => undefined), // the next radar event or reconnect fetches them again
  );
  return (): void => void fetches.request();
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
