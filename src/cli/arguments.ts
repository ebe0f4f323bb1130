/**
 * Checks of command-line arguments made before anything is sent. A session reference travels in
 * the request's URL, where an absurd one is cut off by the HTTP server's header limit (431)
 * rather than answered; it is refused here instead, with the invalid-input exit code.
 */
import { InvalidInputError } from '../shared/errors.js';

/** Well beyond any id or name (names are at most 48 characters), short enough for any URL. */
export const MAX_SESSION_REF_LENGTH = 200;

/** Commander argument parser for `<session>`: the reference itself, or a one-line refusal. */
export function sessionRef(ref: string): string {
  if (ref.length <= MAX_SESSION_REF_LENGTH) return ref;
  throw new InvalidInputError(
    `The session reference "${ref.slice(0, 24)}…" is ${ref.length} characters long; a session is named by its id, an id prefix or its name (at most ${MAX_SESSION_REF_LENGTH} characters). Run \`baton ls\` to see sessions.`,
    { length: ref.length },
  );
}
