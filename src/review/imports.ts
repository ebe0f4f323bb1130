/**
 * What a file points at. For TypeScript and JavaScript, the import graph: the file is parsed by
 * TypeScript's own parser (so comments, strings, template literals, regular expressions and JSX
 * that only look like imports are not taken for them), and its `import`, `export … from`,
 * `import type`, `import x = require(…)`, `require(…)` and `import(…)` are listed;
 * relative specifiers are then resolved against the files of the session's tree the way Node and
 * TypeScript do (extensions, `index` files, a `.js` specifier naming a `.ts` file). For other
 * languages, a file points at another when its text names that file's path, or names its module
 * on an import-like line (`from app.watcher import …`, `use crate::watcher`, `#include "watcher.h"`).
 */
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type * as TypeScript from 'typescript';

const CODE = /\.(?:[cm]?[jt]sx?)$/;
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
/** TypeScript ESM writes the specifier of the emitted file: `./a.js` means `./a.ts` in the source. */
const EMITTED: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};

let ts: typeof TypeScript | undefined;
/** Loaded on first use (~200 ms, once per supervisor), not when the supervisor starts. */
function typescript(): typeof TypeScript {
  ts ??= createRequire(import.meta.url)('typescript') as typeof TypeScript;
  return ts;
}

/** The files of a tree, as resolution needs them (a Set will do). */
export interface FileSet {
  has(path: string): boolean;
}

export function isCode(path: string): boolean {
  return CODE.test(path);
}

/** A test file by the usual conventions: `*.test.*`, `*.spec.*`, or under `test/`, `tests/`, `__tests__/`. */
export function isTest(path: string): boolean {
  return /\.(?:test|spec)\.[^/]+$/.test(path) || /(?:^|\/)(?:test|tests|__tests__)\//.test(path);
}

/**
 * Every module specifier a TypeScript/JavaScript source names, in source order. The file is
 * parsed (not scanned) so that even a regular expression containing `import('…')` is one.
 */
export function importSpecifiers(source: string, path = 'module.ts'): string[] {
  const t = typescript();
  const kind = /\.tsx$/.test(path)
    ? t.ScriptKind.TSX
    : /\.[cm]?[jt]s$/.test(path) && !/\.[cm]?js$/.test(path)
      ? t.ScriptKind.TS
      : t.ScriptKind.JSX;
  const file = t.createSourceFile(path, source, t.ScriptTarget.Latest, false, kind);
  const out: string[] = [];
  const literal = (node: TypeScript.Node | undefined): void => {
    if (node !== undefined && t.isStringLiteralLike(node)) out.push(node.text);
  };
  const visit = (node: TypeScript.Node): void => {
    if (t.isImportDeclaration(node) || t.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (t.isImportEqualsDeclaration(node) && t.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (
      t.isCallExpression(node) &&
      (node.expression.kind === t.SyntaxKind.ImportKeyword ||
        (t.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      literal(node.arguments[0]);
    else if (t.isImportTypeNode(node) && t.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    t.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** `./x`, `../x`, `.` or `..`: a specifier naming a file of the repository rather than a package. */
export function isRelative(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..';
}

/**
 * The repository path a relative specifier written in `from` names, among `files`; undefined for
 * a package (`react`, `node:fs`), an alias, or a file not in the tree.
 */
export function resolveSpecifier(from: string, specifier: string, files: FileSet): string | undefined {
  if (!isRelative(specifier)) return undefined;
  const bare = specifier.split(/[?#]/)[0] ?? specifier;
  const target = posix.normalize(posix.join(posix.dirname(from), bare));
  if (target.startsWith('../') || target === '..') return undefined;
  const candidates: string[] = [target];
  const ext = posix.extname(target);
  for (const swapped of EMITTED[ext] ?? []) candidates.push(target.slice(0, -ext.length) + swapped);
  for (const e of EXTENSIONS) candidates.push(target + e);
  for (const e of EXTENSIONS) candidates.push(posix.join(target, `index${e}`));
  return candidates.find((c) => c !== '.' && files.has(c));
}

/** The files of `files` that a code file imports (resolved, deduplicated). */
export function resolvedImports(from: string, specifiers: readonly string[], files: FileSet): string[] {
  const out = new Set<string>();
  for (const s of specifiers) {
    const resolved = resolveSpecifier(from, s, files);
    if (resolved !== undefined && resolved !== from) out.add(resolved);
  }
  return [...out];
}

const IMPORT_LINE =
  /^\s*(?:import|from|use|using|require|include|#\s*include|load|source|mod|extern|open|@import|require_relative)\b.*$/gm;
const GENERIC_STEMS = new Set([
  'index',
  'main',
  'mod',
  'lib',
  'init',
  '__init__',
  'utils',
  'util',
  'types',
  'test',
  'tests',
  'setup',
  'config',
  'readme',
  'package',
  'app',
]);

/**
 * Whether `text` (a file that is not TypeScript/JavaScript) refers to `target`: it names its path
 * (with or without the extension, or dotted as a module: `app/watcher.py` → `app.watcher`), or,
 * on an import-like line, its module stem as a word (`watcher`), when the stem is not a generic
 * name such as `index` or `utils`.
 */
export function mentions(text: string, target: string): boolean {
  const noExt = target.replace(/\.[^./]+$/, '');
  if (text.includes(target)) return true;
  if (
    noExt.includes('/') &&
    (containsWord(text, noExt) ||
      containsWord(text, noExt.replace(/\//g, '.')) ||
      containsWord(text, noExt.replace(/\//g, '::')))
  )
    return true;
  const stem = posix.basename(noExt);
  if (stem.length < 3 || GENERIC_STEMS.has(stem.toLowerCase())) return false;
  const word = new RegExp(`(?:^|[^A-Za-z0-9_])${escape(stem)}(?:$|[^A-Za-z0-9_])`);
  for (const line of text.match(IMPORT_LINE) ?? []) if (word.test(line)) return true;
  return false;
}

function containsWord(text: string, needle: string): boolean {
  return new RegExp(`(?:^|[^A-Za-z0-9_/.:])${escape(needle)}(?:$|[^A-Za-z0-9_])`, 'm').test(text);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
