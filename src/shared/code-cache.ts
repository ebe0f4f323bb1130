/**
 * V8's code cache for the bundled processes (decision 440, "The bundles start from V8's code
 * cache"). Node 20 caches no compiled code of its own (`module.enableCompileCache` is Node 22.1)
 * and none at all for ES modules, so the bundles are CommonJS and their files are compiled here,
 * through `vm.Script` with the `cachedData` an earlier process left: the supervisor's start then
 * skips most of the parsing and compiling that was the largest part of its CPU.
 *
 * Only files the build listed in the bundle's `code-cache.json` are taken, each under the hash of
 * its content the build wrote there. The build lists no file with an `import()` in it: a script
 * compiled by `vm` cannot import without Node's experimental loader (and not at all from a cache),
 * so those are left to Node's own loader.
 *
 * A cache file is named by the file, its content hash and the runtime (Node's version, the
 * architecture, Node's flags: V8 refuses a cache made under other flags), and starts with that name
 * again, so a cache copied or renamed from another file is never handed to V8. V8 checks the rest
 * (its version, the source's length, its flags) and refuses a truncated file; a refused or missing
 * cache is compiled as usual and written anew. Writing never fails a start: the first folder that
 * takes the file keeps it (the bundle's own `.code-cache`, else one in Baton's home), none is fine.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Module } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { batonHome } from './paths.js';

/** The build's list of the files that may be cached, by name within the bundle's folder: content hashes. */
export const CODE_CACHE_MANIFEST = 'code-cache.json';

/** The folder beside the bundle's files where their caches are kept when the install may be written. */
export const BUNDLE_CACHE_FOLDER = '.code-cache';

/** Turned off, for measuring and as a way out: BATON_CODE_CACHE=off. */
const OFF = 'off';

export interface CodeCacheStats {
  /** Files compiled from a cache V8 accepted. */
  accepted: number;
  /** Files whose cache was refused (by V8, or not this file's), compiled as usual. */
  refused: number;
  /** Files compiled without a cache (none yet). */
  missing: number;
  /** Cache files written, and the folder they went to (undefined when none could be written). */
  written: number;
  folder: string | undefined;
}

export interface CodeCache {
  readonly stats: CodeCacheStats;
  /** Writes the caches of the files compiled without one (once each); never throws. */
  save(): void;
}

/** What Node's `Module` offers beyond its typings. */
interface InternalModule {
  exports: unknown;
  require(id: string): unknown;
  _compile: (this: InternalModule, content: string, filename: string) => unknown;
}
interface ModuleStatics {
  wrap(script: string): string;
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
  _cache: unknown;
  _extensions: unknown;
  prototype: InternalModule;
}

/**
 * Compiles the listed files of `bundleDir` from their caches from now on; `cacheFolders` are tried in
 * order when writing, and read in order too (the first that holds a file's cache gives it).
 * Answers undefined, changing nothing, when the bundle has no manifest or BATON_CODE_CACHE is off.
 */
export function useCodeCache(
  bundleDir: string,
  cacheFolders: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): CodeCache | undefined {
  if (env.BATON_CODE_CACHE === OFF) return undefined;
  let manifest: Record<string, string>;
  try {
    manifest = JSON.parse(readFileSync(join(bundleDir, CODE_CACHE_MANIFEST), 'utf8')) as Record<
      string,
      string
    >;
  } catch {
    return undefined;
  }
  const runtime = runtimeKey(env);
  const prefix = bundleDir.endsWith(sep) ? bundleDir : bundleDir + sep;
  const statics = Module as unknown as ModuleStatics;
  const compile = statics.prototype._compile;
  const stats: CodeCacheStats = { accepted: 0, refused: 0, missing: 0, written: 0, folder: undefined };
  const unsaved: { script: Script; name: string }[] = [];

  function compileCached(
    module: InternalModule,
    content: string,
    file: string,
    filename: string,
    hash: string,
  ) {
    const name = `${file.replaceAll(sep, '_')}-${hash}-${runtime}`;
    const cachedData = read(cacheFolders, name);
    const script = new Script(statics.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (cachedData === undefined) stats.missing++;
    else if (script.cachedDataRejected === true) stats.refused++;
    else stats.accepted++;
    if (cachedData === undefined || script.cachedDataRejected === true) unsaved.push({ script, name });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    // What Node's own loader hands a CommonJS module.
    const require = Object.assign((id: string) => module.require(id), {
      resolve: (request: string, options?: unknown) =>
        statics._resolveFilename(request, module, false, options),
      main: process.mainModule,
      cache: statics._cache,
      extensions: statics._extensions,
    });
    const dir = filename.slice(0, filename.lastIndexOf(sep));
    return wrapper.call(module.exports, module.exports, require, module, filename, dir);
  }

  statics.prototype._compile = function (this: InternalModule, content: string, filename: string) {
    const file = filename.startsWith(prefix) ? filename.slice(prefix.length) : undefined;
    const hash = file === undefined ? undefined : manifest[file];
    if (file === undefined || typeof hash !== 'string') return compile.call(this, content, filename);
    return compileCached(this, content, file, filename, hash);
  };

  return {
    stats,
    save() {
      for (const { script, name } of unsaved.splice(0)) {
        let data: Buffer;
        try {
          data = script.createCachedData();
        } catch {
          continue;
        }
        const folder = write(cacheFolders, name, data, stats.folder);
        if (folder === undefined) return;
        stats.folder = folder;
        stats.written++;
      }
    },
  };
}

/** The cache's own header: its name, so that a file renamed or copied from another is never used. */
function header(name: string): Buffer {
  return Buffer.from(`${name}\n`, 'latin1');
}

function read(folders: readonly string[], name: string): Buffer | undefined {
  const expected = header(name);
  for (const folder of folders) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(folder, name));
    } catch {
      continue;
    }
    if (bytes.length > expected.length && bytes.subarray(0, expected.length).equals(expected))
      return bytes.subarray(expected.length);
  }
  return undefined;
}

/** Writes the cache whole or not at all (a temporary file, then renamed); answers the folder that took it. */
function write(
  folders: readonly string[],
  name: string,
  data: Buffer,
  known: string | undefined,
): string | undefined {
  for (const folder of known === undefined ? folders : [known]) {
    const temporary = join(folder, `${name}.${process.pid}.tmp`);
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(temporary, Buffer.concat([header(name), data]), { mode: 0o600 });
      renameSync(temporary, join(folder, name));
      return folder;
    } catch {
      try {
        rmSync(temporary, { force: true });
      } catch {
        // No folder to leave it in.
      }
    }
  }
  return undefined;
}

/**
 * Node's version, the architecture and the flags V8 runs under (a host runs with flags of its own,
 * decision 368, and V8 refuses a cache made under other flags): a short FNV-1a hash, so processes
 * started differently keep caches of their own instead of overwriting each other's.
 */
function runtimeKey(env: NodeJS.ProcessEnv): string {
  const text = [process.version, process.arch, ...process.execArgv, env.NODE_OPTIONS ?? ''].join('\0');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${process.versions.v8.replace(/[^0-9.]/g, '')}-${hash.toString(16).padStart(8, '0')}`;
}

/** How long after a long-running process has loaded its code its caches are written (and again at its exit). */
const SAVE_AFTER_MS = 2_000;

/**
 * A bundle's entry: the cache for the files beside `entryUrl` (kept in the bundle's own folder, else
 * in Baton's home), then `load()`. The caches are written at exit, and for a process that lives on
 * (a supervisor, a spare host, `baton logs -f`) a little after its load.
 */
export function startCached(entryUrl: string, load: () => Promise<unknown>): void {
  const bundleDir = dirname(fileURLToPath(entryUrl));
  const cache = useCodeCache(bundleDir, [
    join(bundleDir, BUNDLE_CACHE_FOLDER),
    join(batonHome(), 'code-cache'),
  ]);
  if (cache !== undefined) process.once('exit', () => cache.save());
  void load().then(() => {
    if (cache !== undefined) setTimeout(() => cache.save(), SAVE_AFTER_MS).unref();
  });
}
