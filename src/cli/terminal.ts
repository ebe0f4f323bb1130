/**
 * Text Baton prints to a terminal is shown, never obeyed. Much of it is an agent's: a task or a
 * decision it recorded, its question, its messages, a session's name. A prompt-injected agent
 * can put escape sequences there that a terminal acts on: OSC 52 writes the user's clipboard (a
 * command to paste), OSC 0/2 retitles the window, OSC 8 hides a link behind other text, a cursor
 * movement or `ESC[2J` redraws what the user reads. On a terminal, every control character but a
 * newline, a tab and the bell is shown as caret text (`^[`), and Baton's own colours (SGR,
 * `ESC[…m`) pass (decision 400, "The terminal shows an agent's text, it does not obey it").
 * Output to a pipe or a file is left exactly as it is: it is data (a diff, JSON, a transcript).
 */

/** Baton's own colours and attributes (`\x1b[1;33m`, `\x1b[0m`); any other escape is neutralised. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /\x1b\[[0-9;]*m|\r\n|[\x00-\x06\x08\x0b-\x1f\x7f\x80-\x9f]/g;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (match) => {
    if (match.length > 1) return match === '\r\n' ? '\n' : match;
    const code = match.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 64)}`;
    if (code === 0x7f) return '^?';
    return `\\x${code.toString(16)}`;
  });
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g;

/**
 * Every string in `value`, deep, with each control character but a newline and a tab shown as
 * caret text — colours too. For the terminal board, whose drawing library writes its own escapes
 * on the same stream, so the stream cannot be guarded: what it is given to draw is (decision 400).
 */
export function plainDeep<T>(value: T): T {
  if (typeof value === 'string') return caret(value) as T;
  if (Array.isArray(value)) return value.map(plainDeep) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainDeep(v)])) as T;
  return value;
}

function caret(text: string): string {
  if (!CONTROL.test(text)) return text;
  CONTROL.lastIndex = 0;
  return text.replace(CONTROL, (match) => {
    const code = match.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 64)}`;
    return code === 0x7f ? '^?' : `\\x${code.toString(16)}`;
  });
}

/** The stream's own write (bound to it), before guardTerminal replaced it. */
const ORIGINAL = new WeakMap<NodeJS.WriteStream, NodeJS.WriteStream['write']>();

/** Makes what is written to `stream` safe for a terminal, when it is one (see above). */
export function guardTerminal(stream: NodeJS.WriteStream): void {
  if (stream.isTTY !== true || ORIGINAL.has(stream)) return;
  const original = stream.write.bind(stream);
  ORIGINAL.set(stream, original);
  const write = original as (chunk: unknown, ...rest: unknown[]) => boolean;
  const guarded = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (typeof chunk === 'string') return write(terminalSafe(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk).toString('utf8');
      // eslint-disable-next-line no-control-regex
      if (/[\x00-\x06\x08\x0b-\x1f\x7f-\x9f]/.test(text)) return write(terminalSafe(text), ...rest);
    }
    return write(chunk, ...rest);
  };
  stream.write = guarded;
}

/**
 * The stream as it was, for a line editor (readline's prompts): it moves the cursor and clears
 * the line as the user types, with escapes of its own, and writes Baton's prompt and the user's
 * keys, not an agent's text. Everything else of the stream (its size, its events) is the same.
 */
export function unguarded(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = ORIGINAL.get(stream);
  if (write === undefined) return stream;
  const raw = Object.create(stream) as NodeJS.WriteStream;
  raw.write = write;
  return raw;
}
