// The shape of the tree in figures, for a closing note or a review: how tall the folder graph is
// (at run time, and with type-only imports too), and the sizes of the product's files in 25-line
// bins from 200 lines, with the counts at or past 400 and 500.
//
//   node scripts/shape.mjs [DIR]    DIR: another checkout to measure (default: this one)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import console from 'node:console';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));

/** The product's modules: src/ and web/src/, tests left out (a test may set up from any layer). */
function productFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : productFiles(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The top folder a path belongs to, as scripts/layers.mjs places it: `src/<folder>`, or `web`. */
function folderOf(path) {
  if (path.startsWith('web/')) return 'web';
  const [top, folder] = path.split('/');
  return top === 'src' ? folder : undefined;
}

const files = [...productFiles(join(root, 'src')), ...productFiles(join(root, 'web', 'src'))];

/**
 * Relative imports as `{ from, to, typeOnly }`. `import type …` and `export type … from` are erased
 * by the compiler, so they tie folders only for the reader, not at run time.
 */
function edges() {
  const found = [];
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    const from = folderOf(relative(root, path));
    const pattern =
      /(\bimport\s+type\b[^'";]*?\bfrom\s*|\bexport\s+type\b[^'";]*?\bfrom\s*|\bfrom\s*|\bimport\s*\(?\s*)['"](\.[^'"]+)['"]/g;
    for (const m of text.matchAll(pattern)) {
      const to = folderOf(relative(root, resolve(dirname(path), m[2])));
      if (from && to && from !== to)
        found.push({ from, to, typeOnly: /^(import|export)\s+type\b/.test(m[1]) });
    }
  }
  return found;
}

/** The longest chain of folders each importing the next (a folder alone is 1; a loop counted once). */
function longest(list) {
  const next = new Map();
  for (const { from, to } of list) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from).add(to);
  }
  const memo = new Map();
  const chain = (folder, path) => {
    if (memo.has(folder)) return memo.get(folder);
    if (path.has(folder)) return [];
    path.add(folder);
    let best = [folder];
    for (const to of next.get(folder) ?? []) {
      const rest = chain(to, path);
      if (rest.length + 1 > best.length) best = [folder, ...rest];
    }
    path.delete(folder);
    memo.set(folder, best);
    return best;
  };
  return [...next.keys()].map((f) => chain(f, new Set())).reduce((a, b) => (b.length > a.length ? b : a), []);
}

const all = edges();
const runtime = longest(all.filter((e) => !e.typeOnly));
const typed = longest(all);
console.log(`folder graph height at run time: ${runtime.length} (${runtime.join(' → ')})`);
console.log(`with type imports: ${typed.length} (${typed.join(' → ')})`);

const sizes = files.map((path) => readFileSync(path, 'utf8').split('\n').length - 1);
const bins = [];
for (let low = 200; low < 500; low += 25)
  bins.push(`${low}–${low + 24}: ${sizes.filter((n) => n >= low && n < low + 25).length}`);
console.log(`files: ${sizes.length}; ${bins.join(' · ')}`);
console.log(
  `≥400 lines: ${sizes.filter((n) => n >= 400).length}; ≥500 lines: ${sizes.filter((n) => n >= 500).length}`,
);
