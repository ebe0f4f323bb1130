/**
 * Review coupling's corpus: sessions whose work must be reviewed together (a shared file, an
 * import, a test of the other's module — one the other is still adding too) and sessions that
 * must stay apart (disjoint work, an import of an unchanged file or a package, text that only
 * looks like an import). Every pair of sessions not named in `coupled` must stay apart. Scored by
 * `corpus.test.ts` and reported by `npm run bench`.
 */

export interface CouplingCase {
  name: string;
  why: string;
  /** The base commit's files. */
  files: Record<string, string>;
  /** Each session's writes on top of the base (null deletes), by session name, oldest first. */
  sessions: Record<string, Record<string, string | null>>;
  /** Pairs that must be in one group. */
  coupled: [string, string][];
}

const base = {
  'src/watcher.ts': 'export function watch(p: string) {\n  return p;\n}\n',
  'src/ipc.ts': "import { watch } from './watcher.js';\nexport const handle = (p: string) => watch(p);\n",
  'src/config.ts': 'export const port = 8080;\n',
  'app/watcher.py': 'def watch(p):\n    return p\n',
  'docs/guide.md': '# Guide\n',
};

export const COUPLING_CASES: CouplingCase[] = [
  // ── must be grouped ──────────────────────────────────────────────────────────
  {
    name: 'same file',
    why: 'both change src/config.ts',
    files: base,
    sessions: {
      a: { 'src/config.ts': 'export const port = 9090;\n' },
      b: { 'src/config.ts': 'export const port = 7070;\n' },
    },
    coupled: [['a', 'b']],
  },
  {
    name: 'an import of the other’s changed file',
    why: 'b changes src/ipc.ts, which imports src/watcher.ts that a changes',
    files: base,
    sessions: {
      a: { 'src/watcher.ts': 'export function watch(p: string) {\n  return p.trim();\n}\n' },
      b: {
        'src/ipc.ts':
          "import { watch } from './watcher.js';\nexport const handle = (p: string) => watch(p) + '!';\n",
      },
    },
    coupled: [['a', 'b']],
  },
  {
    name: 'a test of the other’s changed module',
    why: 'b writes a test importing src/watcher.ts, which a changes',
    files: base,
    sessions: {
      a: { 'src/watcher.ts': 'export function watch(p: string) {\n  return p.trim();\n}\n' },
      b: { 'test/watcher.test.ts': "import { watch } from '../src/watcher';\nwatch('x');\n" },
    },
    coupled: [['a', 'b']],
  },
  {
    name: 'a test of a module the other adds',
    why: 'a writes a test of src/debounce.ts before b has added it: resolved against b’s new file',
    files: base,
    sessions: {
      a: { 'test/debounce.test.ts': "import { debounce } from '../src/debounce.js';\ndebounce();\n" },
      b: { 'src/debounce.ts': 'export const debounce = () => 1;\n' },
    },
    coupled: [['a', 'b']],
  },
  {
    name: 'an import of a folder’s index the other adds',
    why: 'a imports ./lib, b adds src/lib/index.ts',
    files: base,
    sessions: {
      a: { 'src/config.ts': "import { x } from './lib';\nexport const port = x;\n" },
      b: { 'src/lib/index.ts': 'export const x = 1;\n' },
    },
    coupled: [['a', 'b']],
  },
  {
    name: 'a test reaching the other’s file through one import',
    why: 'b tests src/ipc.ts (unchanged), which imports src/watcher.ts that a changes',
    files: base,
    sessions: {
      a: { 'src/watcher.ts': 'export function watch(p: string) {\n  return p.trim();\n}\n' },
      b: { 'test/ipc.test.ts': "import { handle } from '../src/ipc.js';\nhandle('y');\n" },
    },
    coupled: [['a', 'b']],
  },
  {
    name: 'a Python test of the other’s module',
    why: 'b’s test imports app.watcher, which a changes',
    files: base,
    sessions: {
      a: { 'app/watcher.py': 'def watch(p):\n    return p.strip()\n' },
      b: { 'tests/test_watcher.py': 'from app.watcher import watch\n\ndef test_it():\n    watch("x")\n' },
    },
    coupled: [['a', 'b']],
  },

  // ── must stay apart ──────────────────────────────────────────────────────────
  {
    name: 'disjoint work',
    why: 'a changes the watcher, b the docs',
    files: base,
    sessions: {
      a: { 'src/watcher.ts': 'export function watch(p: string) {\n  return p.trim();\n}\n' },
      b: { 'docs/guide.md': '# Guide\n\nMore.\n' },
    },
    coupled: [],
  },
  {
    name: 'both import a file nobody changes',
    why: 'a and b each add a module importing src/config.ts, unchanged',
    files: base,
    sessions: {
      a: { 'src/one.ts': "import { port } from './config.js';\nexport const one = port;\n" },
      b: { 'src/two.ts': "import { port } from './config.js';\nexport const two = port;\n" },
    },
    coupled: [],
  },
  {
    name: 'an import of a package named like the other’s new file',
    why: 'a imports the package `debounce`; b adds src/debounce.ts: a package is not a file',
    files: base,
    sessions: {
      a: { 'src/config.ts': "import debounce from 'debounce';\nexport const port = debounce;\n" },
      b: { 'src/debounce.ts': 'export const debounce = () => 1;\n' },
    },
    coupled: [],
  },
  {
    name: 'an import in a comment or a string',
    why: 'a’s text only looks like an import of the file b adds',
    files: base,
    sessions: {
      a: {
        'src/config.ts':
          "// import { x } from './fresh.js';\nexport const port = \"import('./fresh.js')\";\n",
      },
      b: { 'src/fresh.ts': 'export const x = 1;\n' },
    },
    coupled: [],
  },
  {
    name: 'an unresolved import that names nobody’s file',
    why: 'a imports ./missing.js that no session adds; b adds something else',
    files: base,
    sessions: {
      a: { 'src/config.ts': "import { m } from './missing.js';\nexport const port = m;\n" },
      b: { 'src/other.ts': 'export const y = 2;\n' },
    },
    coupled: [],
  },
  {
    name: 'a relative import from another folder',
    why: 'a in test/ imports ./debounce (test/debounce), b adds src/debounce.ts: another path',
    files: base,
    sessions: {
      a: { 'test/use.test.ts': "import { debounce } from './debounce';\ndebounce();\n" },
      b: { 'src/debounce.ts': 'export const debounce = () => 1;\n' },
    },
    coupled: [],
  },
];
