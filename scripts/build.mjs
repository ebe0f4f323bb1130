/**
 * Builds `dist/` from `src/` by transpiling each file on its own with TypeScript's own
 * `transpileModule` (no type check: `npm run typecheck` is the one type check, run by `npm test`).
 * The settings allow it (`isolatedModules`, `verbatimModuleSyntax`), so the output is what
 * `tsc -p tsconfig.build.json` emits, at a fraction of the time: see decision 188, "One type
 * check per test run: the build transpiles".
 *
 *   node scripts/build.mjs          build dist/ (stale files removed)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');

/** The compiler options of tsconfig.build.json, as tsc reads them. */
function compilerOptions() {
  const file = join(ROOT, 'tsconfig.build.json');
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error !== undefined)
    throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT);
  return parsed.options;
}

/** Source files that become modules: no tests, no declarations. */
function sources(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (/\.tsx?$/.test(entry) && !/\.d\.ts$/.test(entry) && !/\.test\.tsx?$/.test(entry))
      found.push(path);
  }
  return found;
}

export function build() {
  // ES modules, as NodeNext emits for a package of "type": "module" (a single file on its own
  // cannot see package.json, and would otherwise be taken for CommonJS).
  const options = {
    ...compilerOptions(),
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: false,
    sourceMap: true,
    declaration: false,
  };
  rmSync(DIST, { recursive: true, force: true });
  let count = 0;
  const problems = [];
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file).replace(/\.tsx?$/, '.js');
    const out = join(DIST, rel);
    const result = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: options,
      fileName: file,
      reportDiagnostics: true,
    });
    for (const d of result.diagnostics ?? [])
      problems.push(`${relative(ROOT, file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    mkdirSync(dirname(out), { recursive: true });
    // The source map names the source as tsc's does: relative to the output file.
    const map = JSON.parse(result.sourceMapText ?? '{}');
    map.file = rel.split('/').pop();
    map.sources = [relative(dirname(out), file)];
    writeFileSync(
      out,
      result.outputText.replace(/\/\/# sourceMappingURL=.*$/m, '') + `//# sourceMappingURL=${map.file}.map`,
    );
    writeFileSync(`${out}.map`, JSON.stringify(map));
    count++;
  }
  if (problems.length > 0) throw new Error(`The build could not transpile:\n${problems.join('\n')}`);
  return count;
}

/** Packages every bundle leaves outside. react-devtools-core: Ink imports it only when DEV is set, and it is not installed. */
const EXTERNAL = [
  /^node:/,
  'better-sqlite3',
  'typescript',
  'mvdan-sh',
  /^@anthropic-ai\//,
  'pg',
  'pg-boss',
  'pg-native',
  'react-devtools-core',
];

/**
 * Yoga (Ink's layout engine) carries its WebAssembly inline, and its Emscripten loader reads that
 * `data:` address through `fetch` whenever there is one: on Node that loads undici, Node's HTTP
 * client, before the board's first frame only to decode the bytes it already holds. Its own decoder
 * is used instead (decision 421). A Yoga whose loader reads otherwise is left as it is, with a warning.
 */
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?';
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  transform(code, id) {
    if (!id.endsWith('yoga-wasm-base64-esm.js')) return null;
    if (!code.includes(YOGA_FETCH)) {
      console.warn('build: yoga-layout loads its WebAssembly otherwise now; the board loads undici for it');
      return null;
    }
    return { code: code.replace(YOGA_FETCH, 'function ya(){return true?'), map: null };
  },
};

/** An ES module's `import()` anywhere in the parsed program (ESTree's ImportExpression). */
function hasImportExpression(node) {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(hasImportExpression);
  if (node.type === 'ImportExpression') return true;
  for (const key in node) if (key !== 'type' && hasImportExpression(node[key])) return true;
  return false;
}

/**
 * Marks a CommonJS bundle's folder as CommonJS for Node (the package is "type": "module") and writes
 * its code cache list: each file that may be compiled from V8's cache, by the hash of its content.
 * A file with an `import()` left in it is not listed: a script compiled by vm cannot import (decision
 * 440). Entries are not listed either: Node loads them before the cache is set up.
 */
function writeCommonJs(dir, output, parseAst) {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'commonjs' }) + '\n');
  const listed = {};
  const left = [];
  for (const file of output) {
    if (file.type !== 'chunk' || file.isEntry) continue;
    if (hasImportExpression(parseAst(file.code))) left.push(file.fileName);
    else listed[file.fileName] = createHash('sha256').update(file.code).digest('hex').slice(0, 16);
  }
  writeFileSync(join(dir, 'code-cache.json'), JSON.stringify(listed, null, 1) + '\n');
  return left;
}

/**
 * The supervisor and the session host, each bundled with what it imports into dist/bundle/ (one
 * file a process, lazily loaded parts as chunks beside it): Node's ES module loader spends most of a
 * start resolving and reading ~500 files, so a bundled supervisor starts on ~40% less CPU (decision
 * 222, "The supervisor and the host start from bundles"). The CLI and the launcher take a bundle
 * when it is there and the transpiled entry otherwise (a build without rolldown, the test runner).
 * The bundles are CommonJS and compile from V8's code cache (decision 440); import.meta.url becomes
 * the file's own URL there.
 *
 * dist/bundle/ is two folders deep like every transpiled module, so the paths modules make from
 * import.meta.url (package.json, web/dist, bin/baton, skills, ./host-main.js) still resolve.
 * Packages stay outside when they are native (better-sqlite3), loaded by path (typescript, the
 * Claude SDK that spawns its own cli.js), optional (pg and what it may require), or loaded only
 * when first used (mvdan-sh, the shell parser: decision 272).
 */
export async function bundle() {
  let rolldown, parseAst;
  try {
    ({ rolldown } = await import('rolldown'));
    ({ parseAst } = await import('rolldown/parseAst'));
  } catch {
    console.log('dist/bundle: rolldown is not installed; the supervisor and host start from dist/ as built');
    return 0;
  }
  const built = await rolldown({
    // Each entry sets up the code cache, then imports the process's own entry (decision 440).
    input: {
      supervisor: join(DIST, 'server', 'start.js'),
      'host-main': join(DIST, 'sessions', 'host-start.js'),
    },
    platform: 'node',
    external: EXTERNAL,
    logLevel: 'warn',
  });
  const out = await built.write({
    dir: join(DIST, 'bundle'),
    // CommonJS, so that the files compile through vm.Script with V8's code cache (decision 440,
    // "The bundles start from V8's code cache"); the folder's package.json says so to Node.
    format: 'cjs',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    sourcemap: true,
  });
  await built.close();
  for (const file of writeCommonJs(join(DIST, 'bundle'), out.output, parseAst))
    console.log(`dist/bundle: ${file} has an import() and compiles without the code cache`);
  // The CLI apart, in dist/cli-bundle/ (also two folders deep): bundled with the supervisor, the
  // modules they share were split into chunks of their own, and the supervisor's start loaded 98
  // files instead of 16 (decision 311).
  const cli = await rolldown({
    // The terminal board is an entry of its own (dist/cli-bundle/board.js): what `baton` loads, and
    // what bench/board.mjs times.
    input: { cli: join(DIST, 'cli', 'main.js'), board: join(DIST, 'board', 'index.js') },
    platform: 'node',
    // commander and zod stay outside: a read command (`ls`, `peek`) must not load either (decision
    // 27), and a package inlined into the entry's file would be parsed by every command.
    external: ['commander', 'zod', ...EXTERNAL],
    // React's and its reconciler's production builds: their development builds, chosen at run time
    // by NODE_ENV, are twice the code to compile before the board's first frame (decision 421).
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    plugins: [yogaWithoutFetch],
    logLevel: 'warn',
  });
  const cliOut = await cli.write({
    dir: join(DIST, 'cli-bundle'),
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    sourcemap: true,
  });
  await cli.close();
  // Every command but the bare `baton` of the board, again as CommonJS in dist/cli-commands/, so
  // that it compiles from V8's code cache and Node starts it without its ES module loader (decision
  // 441). The board is not in it: Yoga waits on its WebAssembly at the top of a module, which
  // CommonJS cannot express, so `bin/baton` takes the board from dist/cli-bundle/.
  const commands = await rolldown({
    input: { cli: join(DIST, 'cli', 'start.js') },
    platform: 'node',
    external: ['commander', 'zod', ...EXTERNAL],
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    plugins: [withoutBoard],
    logLevel: 'warn',
  });
  const commandsOut = await commands.write({
    dir: join(DIST, 'cli-commands'),
    format: 'cjs',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    sourcemap: true,
    // Node's builtins imported on first use (node:child_process, node:readline) become require():
    // a file with an import() left in it compiles without the cache.
    dynamicImportInCjs: false,
  });
  await commands.close();
  for (const file of writeCommonJs(join(DIST, 'cli-commands'), commandsOut.output, parseAst))
    console.log(`dist/cli-commands: ${file} has an import() and compiles without the code cache`);
  return [out, cliOut, commandsOut].reduce(
    (n, o) => n + o.output.filter((f) => f.type === 'chunk').length,
    0,
  );
}

/** The board's entry, in the CommonJS bundle of the commands, is one that says where the board is. */
const withoutBoard = {
  name: 'without-board',
  resolveId(source, importer) {
    if (importer?.endsWith(join('cli', 'main.js')) && source === '../board/index.js') return '\0board';
    return null;
  },
  load(id) {
    if (id !== '\0board') return null;
    return 'export async function openBoard() { throw new Error("The terminal board starts from dist/cli-bundle/ (bin/baton)."); }';
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const count = build();
  console.log(`dist: ${count} modules transpiled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const bundling = performance.now();
  const files = await bundle();
  if (files > 0)
    console.log(
      `dist/bundle: the supervisor, the host and the CLI in ${files} files in ${((performance.now() - bundling) / 1000).toFixed(1)} s`,
    );
}
