// Code and docs cite decisions, never the tracker: "issue N" means nothing to someone reading
// the repository, while `decision 127, "A shared workspace in the supervisor"` is a heading in
// docs/decisions.md they can open. Citations of another project's tracker (`dcg #304`) are fine.
//
//   node scripts/citations.mjs     fails, naming each file and line, when one cites an issue
//                                  (npm run lint runs this)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import console from 'node:console';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the product's code and words live; built output and dependencies are not ours. */
export const PLACES = ['src', 'web/src', 'test', 'scripts', 'bench', 'docs', 'CONTRIBUTING.md', 'README.md'];
const SKIP = new Set(['node_modules', 'dist', '.git']);
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|txt|css|html)$/;

/** "issue N", "Issue #N", "issues N" with N a number: a citation of this project's own tracker. */
export const CITATION = /\b[Ii]ssues? #?\d+/;

/** Each line of `text` that cites the tracker, as `line: text`. */
export function citations(text) {
  return text
    .split('\n')
    .map((line, i) => [i + 1, line])
    .filter(([, line]) => CITATION.test(line))
    .map(([n, line]) => `${n}: ${line.trim()}`);
}

function files(path, out = []) {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOTDIR') return TEXT.test(path) ? [...out, path] : out;
    if (error.code === 'ENOENT') return out;
    throw error;
  }
  for (const entry of entries) {
    if (SKIP.has(entry.name)) continue;
    const full = join(path, entry.name);
    if (entry.isDirectory()) files(full, out);
    else if (TEXT.test(entry.name)) out.push(full);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = PLACES.flatMap((place) => files(join(root, place))).flatMap((file) =>
    citations(readFileSync(file, 'utf8')).map((hit) => `${relative(root, file)}:${hit}`),
  );
  if (found.length) {
    console.error(
      [
        'These cite the issue tracker; cite the decision instead (decision N, "its title", from',
        'docs/decisions.md), or say in words what it means:',
        ...found,
      ].join('\n'),
    );
    process.exit(1);
  }
}
