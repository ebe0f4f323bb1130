/**
 * Ready for review and unused for `idleExitMs`: the host ends, keeping the state, so the agent
 * process does not sit on its memory. A reply resumes the conversation in a new host.
 */
export class IdleExit {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number | undefined,
    /** Ready for review and not ending. */
    private readonly idle: () => boolean,
    /** A request is being answered right now. */
    private readonly busy: () => boolean,
    private readonly exit: (message: string) => void,
  ) {}

  /** Called after every event: starts the clock when idle begins, stops it when idleness ends. */
  update(): void {
    if (!this.idle()) {
      this.clear();
      return;
    }
    if (this.timer !== undefined || this.ms === undefined) return;
    const ms = this.ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.idle() || this.busy()) return this.update();
      this.exit(`unused for ${formatDuration(ms)} after the turn; a reply resumes the conversation`);
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** "45 s", "30 min": how long, for a person. */
function formatDuration(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
