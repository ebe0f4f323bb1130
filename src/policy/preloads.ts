/**
 * Files a command loads before (or instead of) the script it names: `node -r ./x.js app.js`,
 * `node --import ./x.mjs`, `NODE_OPTIONS=--require ./x.js npm test` (every Node the command
 * starts loads it), `PYTHONSTARTUP=x.py`, `PERL5OPT=-Mx`, `RUBYOPT=-r./x`, `BASH_ENV=x.sh`. An
 * agent refused `rm -rf /opt/x` can put it in such a file as easily as in a script, so each one
 * is read and judged like the script itself (decision 330): one command may run several files.
 *
 * A variable applies to whatever the command starts, so it is read whatever the command is; a
 * file it names that the gate cannot know (`NODE_OPTIONS="-r $X"`) asks. A bare package name
 * (`-r dotenv/config`, `-Mstrict`) is an installed module unless a folder the command adds to the
 * search path (`-I.`, `PERL5LIB`, `RUBYLIB`) holds it: the gate reads the files a command names,
 * not what those files import.
 */
import { UNKNOWN, joinPath, type Word } from './shell.js';
import type { Command } from './command.js';

/** `envfile`: a file of `NAME=value` lines Node reads into its environment (`node --env-file`). */
export type PreloadLanguage = 'shell' | 'python' | 'node' | 'ruby' | 'perl' | 'envfile';

export interface Preload {
  path: string;
  language: PreloadLanguage;
  /** Where the program looks, in order (`./x` is x, x.js, …; a module is looked for in each folder). */
  candidates: string[];
  /** How the log names it: `NODE_OPTIONS --require ./x.js`. */
  label: string;
  /** Looked for along a search path: none there runs nothing of the session's. */
  searched?: boolean;
}

export interface Preloads {
  files: Preload[];
  /** Why a preloaded file cannot be known: the command asks. */
  unsure: string[];
}

const NODE_PROGRAMS = new Set(['node', 'nodejs', 'bun', 'tsx', 'ts-node']);
/** Node's options that load a file first, each with its value (`--require=x`, `--require x`, `-r x`). */
const NODE_LOADS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  // `node --test --test-reporter=./x.js` imports the reporter as a module (a name like `spec` is built in).
  '--test-reporter',
]);
/** Node's options naming a file of variables it reads first: its `NODE_OPTIONS` line loads files too. */
const NODE_ENV_FILES = new Set(['--env-file', '--env-file-if-exists']);
const NODE_EXTENSIONS = ['.js', '.cjs', '.mjs', '.ts', '/index.js'];
/** Variables whose value is one file a shell or Python reads first. */
const FILE_VARIABLES: Record<string, PreloadLanguage> = {
  BASH_ENV: 'shell',
  ENV: 'shell',
  PYTHONSTARTUP: 'python',
};

/** The files a command loads besides its script, read from its own options and its variables. */
export function preloadsOf(command: Command): Preloads {
  const out: Preloads = { files: [], unsure: [] };
  const cwd = command.cwd;
  if (cwd === undefined) return out;
  const values = command.values ?? {};
  const program = command.name.replace(/[0-9.]+$/, '');
  if (NODE_PROGRAMS.has(program)) nodeLoads(words(command.args), cwd, command.name, out);
  if (program === 'ruby') rubyLoads(words(command.args), cwd, values, command.name, out);
  if (program === 'perl') perlLoads(words(command.args), cwd, values, command.name, out);
  const nodeOptions = values['NODE_OPTIONS'];
  if (nodeOptions !== undefined) nodeLoads(split(nodeOptions), cwd, 'NODE_OPTIONS', out);
  const rubyOptions = values['RUBYOPT'];
  if (rubyOptions !== undefined) rubyLoads(split(rubyOptions), cwd, values, 'RUBYOPT', out);
  const perlOptions = values['PERL5OPT'];
  if (perlOptions !== undefined) perlLoads(split(perlOptions), cwd, values, 'PERL5OPT', out);
  pythonSiteHooks(values, cwd, out);
  for (const [name, language] of Object.entries(FILE_VARIABLES)) {
    const value = values[name];
    if (value === undefined || value.text === '') continue;
    if (value.dynamic) out.unsure.push(`${name} names a file only known when it runs`);
    else {
      const path = joinPath(cwd, value.text);
      out.files.push({ path, language, candidates: [], label: `${name}=${value.text}` });
    }
  }
  return out;
}

/**
 * `PYTHONPATH=dir`: every Python the command starts imports `sitecustomize` and `usercustomize`
 * at start-up, the first found along the path — a file in a folder the agent names is run before
 * any script, `python3 -c` or `pytest` alike.
 */
function pythonSiteHooks(values: Record<string, Word>, cwd: string, out: Preloads): void {
  const value = values['PYTHONPATH'];
  if (value === undefined || value.text === '') return;
  const dirs = pathList(value, cwd);
  for (const module of ['sitecustomize', 'usercustomize']) {
    const candidates = dirs.map((dir) => joinPath(dir, `${module}.py`));
    if (candidates.length > 0)
      out.files.push({
        path: candidates[0] ?? '',
        language: 'python',
        candidates,
        label: `PYTHONPATH=${value.text.replaceAll(UNKNOWN, '$…')} ${module}`,
        searched: true,
      });
  }
}

/** The option words of a command line or of a variable's value split as the program splits it. */
function words(args: Word[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    // The script and its own arguments follow: options after it are the script's.
    if (!arg.text.startsWith('-')) {
      if (out.length === 0 || !takesValue(out[out.length - 1] ?? '')) break;
    }
    out.push(arg.text);
  }
  return out;
}

function takesValue(option: string): boolean {
  return (
    NODE_LOADS.has(option) ||
    NODE_ENV_FILES.has(option) ||
    option === '-I' ||
    option === '-W' ||
    option === '-X'
  );
}

function split(value: Word): string[] {
  return value.text.split(/\s+/).filter((w) => w !== '');
}

/** `-r x` / `--require=x` / `--import x` / `--loader x`: each value a file Node loads first. */
function nodeLoads(options: string[], cwd: string, from: string, out: Preloads): void {
  for (let i = 0; i < options.length; i++) {
    const option = options[i] ?? '';
    const eq = option.indexOf('=');
    const name = eq < 0 ? option : option.slice(0, eq);
    const envFile = NODE_ENV_FILES.has(name);
    if (!NODE_LOADS.has(name) && !envFile) continue;
    const value = eq < 0 ? options[++i] : option.slice(eq + 1);
    if (value === undefined) continue;
    const label = `${from} ${name} ${value.replaceAll(UNKNOWN, '$…')}`;
    if (value.includes(UNKNOWN)) {
      out.unsure.push(`${label} loads a file only known when it runs`);
      continue;
    }
    if (envFile) {
      // Its `NODE_OPTIONS=--require ./p.js` line loads p.js: read like a script (decision 344).
      const path = joinPath(cwd, value);
      out.files.push({
        path,
        language: 'envfile',
        candidates: [path],
        label,
        searched: name !== '--env-file',
      });
      continue;
    }
    const path = nodePath(value, cwd);
    if (path === undefined) continue;
    out.files.push({
      path,
      language: 'node',
      candidates: [path, ...NODE_EXTENSIONS.map((e) => `${path}${e}`)],
      label,
    });
  }
}

/** A relative or absolute specifier is a file; a bare one (`dotenv/config`, `tsx`) is an installed package. */
function nodePath(specifier: string, cwd: string): string | undefined {
  if (specifier.startsWith('file://')) {
    try {
      return decodeURIComponent(new URL(specifier).pathname);
    } catch {
      return undefined;
    }
  }
  if (
    specifier.startsWith('/') ||
    specifier.startsWith('./') ||
    specifier.startsWith('../') ||
    specifier === '.'
  )
    return joinPath(cwd, specifier);
  return undefined;
}

/** Folders a variable adds to a module search path (`PERL5LIB=lib:.`), known parts only. */
function pathList(value: Word | undefined, cwd: string): string[] {
  if (value === undefined) return [];
  return value.text
    .split(':')
    .filter((p) => p !== '' && !p.includes(UNKNOWN))
    .map((p) => joinPath(cwd, p));
}

/** `-r./x` / `-r x` (RUBYOPT, ruby's own options): a path, or a library looked for in `-I` folders and RUBYLIB. */
function rubyLoads(
  options: string[],
  cwd: string,
  values: Record<string, Word>,
  from: string,
  out: Preloads,
): void {
  const dirs = [...includeDirs(options, cwd), ...pathList(values['RUBYLIB'], cwd)];
  for (const library of optionValues(options, '-r')) {
    const label = `${from} -r${library.replaceAll(UNKNOWN, '$…')}`;
    if (library.includes(UNKNOWN)) out.unsure.push(`${label} loads a file only known when it runs`);
    else if (library.startsWith('/') || library.startsWith('./') || library.startsWith('../')) {
      const path = joinPath(cwd, library);
      out.files.push({ path, language: 'ruby', candidates: [path, `${path}.rb`], label });
    } else {
      const candidates = dirs.flatMap((dir) => [`${dir}/${library}.rb`, `${dir}/${library}`]);
      if (candidates.length > 0)
        out.files.push({ path: candidates[0] ?? '', language: 'ruby', candidates, label });
    }
  }
}

/** `-MFoo::Bar` / `-mFoo` / `-d:Foo` (PERL5OPT, perl's own options), looked for in `-I` folders and PERL5LIB. */
function perlLoads(
  options: string[],
  cwd: string,
  values: Record<string, Word>,
  from: string,
  out: Preloads,
): void {
  const dirs = [
    ...includeDirs(options, cwd),
    ...pathList(values['PERL5LIB'], cwd),
    ...pathList(values['PERLLIB'], cwd),
  ];
  const modules = [
    ...optionValues(options, '-M'),
    ...optionValues(options, '-m'),
    ...optionValues(options, '-d:').map((m) => `Devel::${m}`),
  ].map((m) => m.replace(/^-/, '').split(/[=\s]/)[0] ?? '');
  for (const module of modules) {
    if (module === '') continue;
    const label = `${from} -M${module.replaceAll(UNKNOWN, '$…')}`;
    if (module.includes(UNKNOWN)) {
      out.unsure.push(`${label} loads a module only known when it runs`);
      continue;
    }
    const file = `${module.replaceAll('::', '/')}.pm`;
    const candidates = dirs.map((dir) => joinPath(dir, file));
    if (candidates.length > 0)
      out.files.push({ path: candidates[0] ?? '', language: 'perl', candidates, label });
  }
}

/** `-Idir` / `-I dir`: folders searched first. */
function includeDirs(options: string[], cwd: string): string[] {
  return optionValues(options, '-I')
    .filter((d) => !d.includes(UNKNOWN))
    .map((d) => joinPath(cwd, d));
}

/** The values of a one-letter option written joined (`-Ilib`) or apart (`-I lib`). */
function optionValues(options: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < options.length; i++) {
    const option = options[i] ?? '';
    if (option === flag) {
      const value = options[++i];
      if (value !== undefined) out.push(value);
    } else if (option.startsWith(flag) && option.length > flag.length) out.push(option.slice(flag.length));
  }
  return out;
}
