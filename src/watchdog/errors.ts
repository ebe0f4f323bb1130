/** The watchdog's named errors (mapped to statuses and exit codes by their code, in src/shared/errors.ts). */
import { BatonError } from '../shared/errors.js';

export class AlertNotFoundError extends BatonError {
  constructor(readonly ref: string) {
    super('not_found', `No alert ${ref}. List them with: baton alerts --all`, { ref });
  }
}

export class BudgetNotFoundError extends BatonError {
  constructor(
    readonly scope: string,
    known: string[],
  ) {
    super(
      'not_found',
      `No ${scope} budget is set${known.length === 0 ? ' (none is)' : `; set: ${known.join(', ')}`}. List them with: baton budget ls`,
      { scope, known },
    );
  }
}
