/**
 * The board reaches the user where they are (decision 153, "Needs-you reaches the user: the
 * terminal, a webhook, an ntfy topic; review capacity throttles dispatch"): when a session newly
 * needs input it rings the terminal's bell and asks the terminal for a desktop notification in
 * both dialects terminals speak (OSC 9: iTerm2, WezTerm, Windows Terminal, Ghostty; OSC 777:
 * foot, kitty, urxvt, VTE), and the window title always says how many sessions wait. A terminal
 * that knows neither sequence ignores it; none of them moves the cursor, so the board's layout is
 * untouched.
 */
import type { SessionView } from '../api/index.js';
import { reasonText } from '../events/format.js';

const ESC = '\u001b';
const BEL = '\u0007';

/** The sessions waiting for the user, by id. */
export function waitingIds(sessions: Iterable<SessionView>): Set<string> {
  const ids = new Set<string>();
  for (const s of sessions) if (s.state === 'needs_input') ids.add(s.id);
  return ids;
}

/** The window title (OSC 2): `Baton — 2 need you`, or plain `Baton`. */
export function titleSequence(waiting: number): string {
  return `${ESC}]2;${waiting === 0 ? 'Baton' : `Baton — ${waiting} need${waiting === 1 ? 's' : ''} you`}${BEL}`;
}

/** The bell and a desktop notification for one session that has just come to need the user. */
export function needsYouSequences(session: SessionView): string {
  const title = clean(`${session.name} needs input`);
  const body = clean(session.reason === null ? 'waiting for you' : reasonText(session.reason));
  return `${BEL}${ESC}]9;${title}: ${body}${BEL}${ESC}]777;notify;${title};${body}${BEL}`;
}

/**
 * What to write when the board moves from `before` to `after`: the title when the count changed,
 * and a notification for each session waiting now that was not before. `before` undefined: the
 * board's first paint, which sets the title but rings for nothing already waiting.
 */
export function signalsBetween(
  before: ReadonlySet<string> | undefined,
  after: ReadonlyMap<string, SessionView>,
  bell: boolean,
): { waiting: Set<string>; write: string } {
  const waiting = waitingIds(after.values());
  let write = before === undefined || before.size !== waiting.size ? titleSequence(waiting.size) : '';
  if (before !== undefined && bell)
    for (const id of waiting) {
      const session = after.get(id);
      if (!before.has(id) && session !== undefined) write += needsYouSequences(session);
    }
  return { waiting, write };
}

/**
 * Text safe inside an escape sequence: an agent's question could otherwise end the sequence early
 * (a BEL or ESC of its own) and write what it likes to the terminal. `;` separates OSC 777's fields.
 */
function clean(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/;/g, ',')
      .slice(0, 200)
  );
}
