/** The context domain's errors: each says what to do next. */
import { BatonError } from '../shared/errors.js';

export class NoTranscriptError extends BatonError {
  constructor(readonly session: string) {
    super(
      'conflict',
      `Session ${session} has no transcript yet: nothing was said or done in it. Wait for its first turn, or hand off from another session.`,
      { session },
    );
  }
}

export class PackBudgetError extends BatonError {
  constructor(
    readonly budget: number,
    readonly needed: number,
    readonly decisions: number,
  ) {
    super(
      'invalid_input',
      `A budget of ${budget} tokens cannot hold the task and its ${decisions} recorded decision${decisions === 1 ? '' : 's'} (they need about ${needed}); nothing was cut. Give --budget ${Math.ceil(needed / 1000) + 1}k or more.`,
      { budget, needed, decisions },
    );
  }
}

export class ImportedSessionNotFoundError extends BatonError {
  constructor(readonly ref: string) {
    super(
      'not_found',
      `No session or imported session "${ref}". \`baton ls\` lists sessions; \`baton import --claude --codex\` brings in sessions run outside Baton.`,
      { ref },
    );
  }
}
