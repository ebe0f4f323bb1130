/**
 * One run at a time per key, each after the ones asked for before it, in order: what git needs of
 * Baton's writers where git itself does not order them (two `worktree add` in one repository, two
 * writers of `refs/notes/baton`). Unlike a `Coalescer` every run happens; a failed run lets the
 * next one go, and the failure is its own caller's.
 */
export class OneAtATime {
  private readonly chains = new Map<string, Promise<unknown>>();

  /** Whether a run for `key` is under way (or waiting its turn). */
  busy(key: string): boolean {
    return this.chains.has(key);
  }

  /** Runs `work` once every run asked for `key` before it has ended. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return next;
  }
}
