/** Session names become branch names (`baton/<name>`) and folder names, so they are strict. */
import { InvalidInputError } from '../shared/errors.js';

export const MAX_NAME_LENGTH = 48;
const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/i;

export function validateSessionName(name: string): string {
  const problem = sessionNameProblem(name);
  if (problem !== undefined) {
    throw new InvalidInputError(
      `Invalid session name "${name}": ${problem}. Use letters, digits, '.', '_' or '-', starting with a letter or digit.`,
    );
  }
  return name;
}

/** Why `name` cannot be a session name (a branch `baton/<name>` and a folder name), or undefined. */
export function sessionNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_NAME_LENGTH) return `it is longer than ${MAX_NAME_LENGTH} characters`;
  if (name.startsWith('-')) return "it starts with '-'";
  if (name.includes('..')) return "it contains '..'";
  if (/\s/.test(name)) return 'it contains whitespace';
  if (!NAME_PATTERN.test(name)) return 'it contains characters other than letters, digits, ., _ and -';
  if (name.endsWith('.lock') || name.endsWith('.')) return "it ends with '.lock' or '.'";
  return undefined;
}

/** A readable default name from the prompt: its first few words, slugged. */
export function nameFromPrompt(prompt: string): string {
  const words = prompt
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .slice(0, 4);
  const slug = words
    .join('-')
    .replace(/-+/g, '-')
    .slice(0, 32)
    .replace(/^-+|-+$/g, '');
  return slug.length > 0 ? slug : 'session';
}
