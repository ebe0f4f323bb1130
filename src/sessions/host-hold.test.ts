/**
 * Keep-fresh's hold on a session's host (decision 456) lasts no longer than the connection that
 * asked for it (decision 461). The host's control socket and reply queue are the real ones, over a
 * real Unix socket, watched as a supervisor watches; the handler is the host's hold step. Interleavings are placed by events (a
 * handler waiting on the test, a connection's close seen by the host), never by timers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatonError } from '../shared/errors.js';
import { holdHost, sendToHost } from './host-client.js';
import { ControlSocket } from './host-control.js';
import { ReplyQueue } from './host-replies.js';
import type { SessionStatus } from './state.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-hold-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A host at rest: its control socket, its reply queue, and a gate the test may close on `hold`. */
async function host() {
  const status: SessionStatus = { state: 'ready_for_review' };
  const delivered: string[] = [];
  const queue = new ReplyQueue({
    status: () => status,
    deliver: (text) => {
      delivered.push(text);
      return new Promise<void>(() => undefined);
    },
    failed: () => undefined,
  });
  let gate: Promise<void> | undefined;
  let reachedHold = (): void => undefined;
  const holdReached = new Promise<void>((resolve) => (reachedHold = resolve));
  const closes: (() => void)[] = [];
  let handled = (): void => undefined;
  const holdHandled = new Promise<void>((resolve) => (handled = resolve));
  const socket = join(dir, 'host.sock');
  const control = new ControlSocket(
    socket,
    async (request, asker) => {
      if (request.op === 'hold') {
        reachedHold();
        await gate;
        try {
          // As the host does (host.ts): refused while at work, else held until resume or the asker goes.
          if (!queue.hold(asker)) throw new BatonError('conflict', 'at work');
        } finally {
          handled();
        }
      }
      if (request.op === 'resume') queue.resume();
    },
    { connected: () => undefined, disconnected: () => closes.shift()?.() },
  );
  // As the host does: a hold lasts at most while a supervisor watches (its watch connection, kept open here).
  control.whenUnwatched(() => queue.resume());
  await control.listen();
  const watch = connect(socket);
  await new Promise<void>((resolve) => watch.once('connect', resolve));
  /** Resolves when the host has seen the next connection close. */
  const nextClose = (): Promise<void> => new Promise((resolve) => closes.push(resolve));
  return {
    socket,
    queue,
    delivered,
    stop: (): void => {
      watch.destroy();
      control.close();
    },
    holdReached,
    holdHandled,
    nextClose,
    closeGate: (): (() => void) => {
      let open = (): void => undefined;
      gate = new Promise((resolve) => (open = resolve));
      return open;
    },
  };
}

describe("keep-fresh's hold on a session host", () => {
  it('is not kept for an asker that gave up before the host took the hold: a reply still reaches the agent', async () => {
    const h = await host();
    const openGate = h.closeGate();
    // The supervisor asks, then gives up waiting (its 30 s ran out on a busy machine, or it died).
    const asker = connect(h.socket);
    await new Promise<void>((resolve) => asker.once('connect', resolve));
    asker.write(JSON.stringify({ id: 1, op: 'hold' }) + '\n');
    await h.holdReached;
    const closed = h.nextClose();
    asker.destroy();
    await closed;
    // Only now does the host get to the hold: no one will ever send `resume` for it.
    openGate();
    await h.holdHandled;
    h.queue.accept('the user replies');
    expect(h.delivered).toEqual(['the user replies']);
    h.stop();
  });

  it('ends when the connection that asked closes, even when no resume arrives', async () => {
    const h = await host();
    const hold = await holdHost(h.socket);
    h.queue.accept('sent during the rebase');
    expect(h.delivered).toEqual([]);
    // The supervisor's `resume` was lost (its send failed): letting the connection go is enough.
    const closed = h.nextClose();
    hold.letGo();
    await closed;
    expect(h.delivered).toEqual(['sent during the rebase']);
    h.stop();
  });

  it('is kept across other connections while its own stays open, and ends on resume', async () => {
    const h = await host();
    const hold = await holdHost(h.socket);
    // Other requests come and go (the watch, a ping): the hold stays.
    await sendToHost(h.socket, { op: 'ping' });
    h.queue.accept('waits');
    expect(h.delivered).toEqual([]);
    await sendToHost(h.socket, { op: 'resume' });
    expect(h.delivered).toEqual(['waits']);
    hold.letGo();
    h.stop();
  });

  it("an earlier hold's connection closing late does not end a later hold", () => {
    const delivered: string[] = [];
    const queue = new ReplyQueue({
      status: () => ({ state: 'ready_for_review' }),
      deliver: (text) => {
        delivered.push(text);
        return new Promise<void>(() => undefined);
      },
      failed: () => undefined,
    });
    const gone: (() => void)[] = [];
    const asker = { whenGone: (callback: () => void) => void gone.push(callback) };
    expect(queue.hold(asker)).toBe(true);
    queue.resume();
    expect(queue.hold(asker)).toBe(true);
    // The first hold's connection close is read only now, with the second hold under way.
    gone[0]?.();
    queue.accept('during the second rebase');
    expect(delivered).toEqual([]);
    gone[1]?.();
    expect(delivered).toEqual(['during the second rebase']);
  });
});
