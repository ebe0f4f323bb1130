/**
 * A tool's output as an event keeps it: at most 8,000 characters, its beginning and its end. The
 * end is where a command says how it ended (a test runner's "3 failed, 12 passed", a compiler's
 * last error), which the watchdog reads and a person looks for; the beginning says what started.
 */
export const MAX_OUTPUT = 8_000;
const HEAD = 2_000;

export function clipOutput(text: string, max = MAX_OUTPUT): string {
  if (text.length <= max) return text;
  const head = Math.min(HEAD, Math.floor(max / 4));
  const tail = max - head - marker(text.length).length;
  return `${text.slice(0, head)}${marker(text.length - head - tail)}${text.slice(text.length - tail)}`;
}

function marker(left: number): string {
  return `\n… ${left} characters left out …\n`;
}

/** Output collected as it streams, in bounded memory however long the command talks: the same text `clipOutput` keeps. */
export class OutputClip {
  private text = '';
  /** Characters dropped from the middle so far. */
  private dropped = 0;

  add(chunk: string): void {
    this.text += chunk;
    // Trimmed now and then, not on every chunk; what is kept of the end stays longer than a clip's.
    if (this.text.length <= 4 * MAX_OUTPUT) return;
    const keep = 2 * MAX_OUTPUT;
    this.dropped += this.text.length - HEAD - keep;
    this.text = this.text.slice(0, HEAD) + this.text.slice(this.text.length - keep);
  }

  toString(): string {
    if (this.dropped === 0) return clipOutput(this.text);
    const tail = MAX_OUTPUT - HEAD - marker(this.dropped + this.text.length).length;
    return `${this.text.slice(0, HEAD)}${marker(this.dropped + this.text.length - HEAD - tail)}${this.text.slice(this.text.length - tail)}`;
  }
}
