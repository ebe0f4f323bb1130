/**
 * Scopes: the globs of files a task may change (`src/watcher/**`). Checked against the
 * repository's files (`git ls-files`, tracked and untracked but not ignored) for globs that match
 * nothing (a warning, usually a typo) and for overlap with another task's scope.
 */
import picomatch from 'picomatch';
import { InvalidInputError } from '../shared/errors.js';

const MAX_GLOBS = 50;

/** The globs, trimmed; refused when absolute, climbing out of the repository, or not a glob picomatch can read. */
export function parseScope(globs: readonly string[]): string[] {
  if (globs.length > MAX_GLOBS)
    throw new InvalidInputError(`A scope holds at most ${MAX_GLOBS} globs; ${globs.length} were given.`);
  return globs.map((raw) => {
    const glob = raw.trim().replace(/^\.\//, '');
    const bad = (why: string): never => {
      throw new InvalidInputError(
        `Scope "${raw}" ${why}. Give globs relative to the repository root, like 'src/watcher/**'.`,
        { reason: 'bad_scope', scope: raw },
      );
    };
    if (glob === '') bad('is empty');
    if (glob.startsWith('/')) bad('is an absolute path');
    if (glob.split('/').includes('..')) bad('climbs out of the repository');
    try {
      picomatch(glob, { strictBrackets: true });
    } catch (error) {
      bad(`is not a glob: ${(error as Error).message}`);
    }
    return glob;
  });
}

export function matcher(scope: readonly string[]): (file: string) => boolean {
  if (scope.length === 0) return () => false;
  return picomatch([...scope], { dot: true });
}

/** The globs that match none of `files`. */
export function unmatchedGlobs(scope: readonly string[], files: readonly string[]): string[] {
  return scope.filter((glob) => !files.some(matcher([glob])));
}

/**
 * Where two scopes meet: the files both take in; when neither names a file in common, the pairs
 * of globs that could still meet on files not made yet (one's fixed folder inside the other's).
 */
export function scopeOverlap(a: readonly string[], b: readonly string[], files: readonly string[]): string[] {
  if (a.length === 0 || b.length === 0) return [];
  const inA = matcher(a);
  const inB = matcher(b);
  const shared = files.filter((file) => inA(file) && inB(file));
  if (shared.length > 0) return shared;
  const pairs: string[] = [];
  for (const x of a) for (const y of b) if (globsMeet(x, y)) pairs.push(x === y ? x : `${x} ∩ ${y}`);
  return pairs;
}

function globsMeet(x: string, y: string): boolean {
  const sx = picomatch.scan(x);
  const sy = picomatch.scan(y);
  if (!sx.isGlob) return matcher([y])(x);
  if (!sy.isGlob) return matcher([x])(y);
  return within(sx.base, sy.base) || within(sy.base, sx.base);
}

/** Whether folder `inner` is `outer` or inside it ('' is the root). */
function within(inner: string, outer: string): boolean {
  return outer === '' || inner === outer || inner.startsWith(`${outer}/`);
}
