/** The attempts domain's named errors. */
import { BatonError } from '../shared/errors.js';

export class AttemptGroupNotFoundError extends BatonError {
  constructor(
    readonly ref: string,
    kind: 'best_of' | 'fanout' | undefined,
  ) {
    const what =
      kind === 'fanout' ? 'fan-out' : kind === 'best_of' ? 'best-of group' : 'attempt group or fan-out';
    const list = kind === 'fanout' ? '`baton fanout ls`' : '`baton attempts ls`';
    super('not_found', `No ${what} matches "${ref}". ${list} lists them.`, { ref });
  }
}

export class AmbiguousGroupError extends BatonError {
  constructor(
    readonly ref: string,
    readonly candidates: string[],
  ) {
    super('ambiguous', `"${ref}" matches several groups (${candidates.join(', ')}); give more of the id.`, {
      ref,
      candidates,
    });
  }
}
