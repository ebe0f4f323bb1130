/**
 * An argument list as one POSIX command line that runs the same words: each word left bare when
 * it holds only characters no shell treats specially, else wrapped in single quotes (where
 * nothing is special), a `'` inside written as `'\''`. `=` is quoted too: a bare `A=b` first word
 * would set a variable instead of running a program.
 */
const BARE = /^[A-Za-z0-9_@%+:,./-]+$/;

export function quoteWord(word: string): string {
  if (BARE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function quoteArgv(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}
