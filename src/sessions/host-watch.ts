/**
 * Watches one running host: new lines in its event log (inotify, with a slow poll as a safety
 * net) and its exit (the child's exit event when we spawned it, else its socket closing).
 */
import { watch, type FSWatcher } from 'node:fs';
import { connect, type Socket } from 'node:net';

const SAFETY_POLL_MS = 1_000;

export class HostWatch {
  readonly gone: Promise<void>;
  private markGone!: () => void;
  private watcher: FSWatcher | undefined;
  private socket: Socket | undefined;
  private readonly poll: NodeJS.Timeout;
  private closed = false;

  constructor(eventsPath: string, socketPath: string, onChange: () => void, exited?: Promise<number | null>) {
    this.gone = new Promise((resolve) => (this.markGone = resolve));
    try {
      this.watcher = watch(eventsPath, () => onChange());
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // The safety poll still picks changes up.
    }
    this.poll = setInterval(onChange, SAFETY_POLL_MS);
    // Anything written before the watcher was in place is read now.
    setImmediate(onChange);
    this.poll.unref();
    exited?.then(
      () => this.finish(),
      () => this.finish(),
    );
    this.socket = connect(socketPath);
    this.socket.on('error', () => this.finish());
    this.socket.on('close', () => this.finish());
  }

  private finish(): void {
    if (this.closed) return;
    this.close();
    this.markGone();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.poll);
    this.watcher?.close();
    this.socket?.destroy();
  }
}
