/** The review domain's errors: each says what is wrong and what to do. */
import { BatonError, InvalidInputError } from '../shared/errors.js';

export class ReviewGroupNotFoundError extends BatonError {
  constructor(ref: string, project: string, count: number) {
    const what = /^\d+$/.test(ref) ? `no group ${ref}` : `no group with a live session "${ref}"`;
    super(
      'not_found',
      count === 0
        ? `Project ${project} has no live sessions, so ${what}. Run \`baton review\` to see the groups.`
        : `Project ${project} has ${what} (it has ${count === 1 ? 'group 1' : `groups 1–${count}`}). Run \`baton review\` to see them.`,
      { ref, project, groups: count },
    );
  }
}

export class ReviewProjectNotFoundError extends BatonError {
  constructor(ref: string, known: string[]) {
    super(
      'not_found',
      `No project "${ref}" has live sessions${known.length > 0 ? ` (projects: ${known.join(', ')})` : ''}.`,
      { ref, known },
    );
  }
}

export class AmbiguousProjectError extends InvalidInputError {
  constructor(known: string[]) {
    super(
      `Sessions of several projects are live (${known.join(', ')}): run this inside one of them, or pass --project.`,
      { known },
    );
  }
}
