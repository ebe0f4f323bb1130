/**
 * A user's search words as an FTS5 query. Words are literal (quoted, so `onChange(` or `a-b`
 * never trip FTS5's syntax) and prefix-matched; "quoted phrases" stay phrases (prefix on the
 * last word); AND, OR, NOT and parentheses keep their meaning. What FTS5 still refuses (an
 * operator with nothing on one side, an unclosed parenthesis) comes back as a clear error
 * naming the query, not as SQLite's message (decision 92).
 */
import { InvalidInputError } from '../shared/errors.js';

const OPERATORS = new Set(['AND', 'OR', 'NOT']);

export function ftsQuery(input: string): string {
  // Control characters are never words: FTS5 ends its string at a NUL ("unterminated string",
  // which once reached the user as a 500) and its tokenizer drops the rest, so they separate.
  // eslint-disable-next-line no-control-regex
  const text = input.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (text === '')
    throw new InvalidInputError(
      input === '' || input.trim() === ''
        ? 'The search is empty: give a word or "a phrase".'
        : `The search ${JSON.stringify(input)} holds only control characters: give a word or "a phrase".`,
    );
  if ((text.match(/"/g)?.length ?? 0) % 2 === 1)
    throw new InvalidInputError(
      `The search ${JSON.stringify(input)} has an unclosed quote: close the "phrase" or drop the quote.`,
    );
  const parts = tokens(text).map((token) =>
    token.kind === 'word'
      ? OPERATORS.has(token.text)
        ? token.text
        : literal(token.text)
      : token.kind === 'phrase'
        ? literal(token.text)
        : token.text,
  );
  if (parts.length === 0)
    throw new InvalidInputError(`The search ${JSON.stringify(input)} has no words to look for.`);
  return parts.join(' ');
}

interface Token {
  kind: 'word' | 'phrase' | 'group';
  text: string;
}

/**
 * Quoted phrases, then words. Parentheses group only at a word's edges (`(a OR b)`) and only
 * when they balance; elsewhere (`onChange()`, `works(`) they are part of the word.
 */
function tokens(text: string, grouping = true): Token[] {
  const out: Token[] = [];
  for (const match of text.matchAll(/"([^"]*)"|([^\s"]+)/g)) {
    const [, phrase, chunk] = match;
    if (phrase !== undefined) {
      if (phrase.trim() !== '') out.push({ kind: 'phrase', text: phrase });
      continue;
    }
    const word = chunk ?? '';
    if (!grouping) {
      out.push({ kind: 'word', text: word });
      continue;
    }
    const opens = /^\(*/.exec(word)![0].length;
    const closes = /\)*$/.exec(word.slice(opens))![0].length;
    const core = word.slice(opens, word.length - closes);
    for (let i = 0; i < opens; i++) out.push({ kind: 'group', text: '(' });
    if (core !== '') out.push({ kind: 'word', text: core });
    for (let i = 0; i < closes; i++) out.push({ kind: 'group', text: ')' });
  }
  let depth = 0;
  let balanced = true;
  for (const t of out) {
    if (t.kind !== 'group') continue;
    depth += t.text === '(' ? 1 : -1;
    if (depth < 0) balanced = false;
  }
  if (balanced && depth === 0) return out;
  // Unbalanced: every parenthesis is part of its word.
  return tokens(text, false);
}

function literal(words: string): string {
  // Only words made of letters and digits can carry FTS5's prefix mark.
  const prefix = /[\p{L}\p{N}]$/u.test(words) ? '*' : '';
  return `"${words.replace(/"/g, '""')}"${prefix}`;
}

/** The error for a query FTS5 could not read. */
export function querySyntaxError(input: string, cause: string): InvalidInputError {
  return new InvalidInputError(
    `The search ${JSON.stringify(input)} is not a valid query (${cause.replace(/^fts5: /, '')}). Words are matched as given; AND, OR, NOT and parentheses need something on each side.`,
  );
}

/** `7d`, `12h`, `30m`, `2w` or a date (`2026-01-31`, ISO time) as the earliest time to include. */
export function parseSince(since: string, now: Date): string {
  const relative = /^(\d+)\s*([mhdw])$/.exec(since.trim());
  if (relative !== null) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[
      relative[2] as 'm' | 'h' | 'd' | 'w'
    ];
    return new Date(now.getTime() - Number(relative[1]) * unit).toISOString();
  }
  const date = /^\d{4}-\d{2}-\d{2}/.test(since.trim()) ? new Date(since.trim()) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new InvalidInputError(
      `--since ${JSON.stringify(since)} is not a time: give an age such as 30m, 12h, 7d or 2w, or a date such as 2026-01-31.`,
    );
  }
  return date.toISOString();
}
