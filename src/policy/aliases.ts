/**
 * Names an inline script gives to the functions the gate looks for, put back before the
 * detectors read it (decision 177, "The gate reads what a script renames"): `from shutil import
 * rmtree as r; r('/opt')` is `shutil.rmtree('/opt')`, `const { rmSync: rm } = require('fs')`
 * makes `rm(…)` `fs.rmSync(…)`, `f = shutil.rmtree` makes `f(…)` one too, `import os as o`
 * makes `o.remove` `os.remove`, `getattr(shutil, 'rmtree')` and `fs['rmSync']` are plain
 * attribute reads. A deleting function handed on rather than called (`map(shutil.rmtree, dirs)`,
 * `paths.forEach(fs.rmSync)`) deletes paths the gate cannot see: `passedDeletes` finds it so
 * the gate asks.
 *
 * This is text, not a parser: it follows the forms agents write, one level deep, and anything
 * it cannot follow stays as written (the detectors read it as before).
 */

/** Modules as the detectors spell them: `fs/promises` is read as `fs.promises`. */
function moduleName(name: string): string {
  return name.replace(/^node:/, '').replace(/\//g, '.');
}

const IDENT = '[A-Za-z_$][\\w$]*';
const DOTTED = `${IDENT}(?:\\.${IDENT})*`;

function escape(name: string): string {
  return name.replace(/[$]/g, '\\$');
}

/** The script with its aliases of modules and functions written out in full. */
export function resolveAliases(script: string): string {
  // Attribute reads by name: `getattr(shutil, 'rmtree')`, `fs['rmSync']`.
  let text = script
    // `require('fs').rmSync` is `fs.rmSync`.
    .replace(/\brequire\s*\(\s*['"`]([\w:/.-]+)['"`]\s*\)\s*(?=\.|\[)/g, (_, name: string) =>
      moduleName(name),
    )
    .replace(new RegExp(`\\bgetattr\\s*\\(\\s*(${DOTTED})\\s*,\\s*['"](${IDENT})['"]\\s*\\)`, 'g'), '$1.$2')
    .replace(new RegExp(`(${IDENT})\\s*\\[\\s*['"\`](${IDENT})['"\`]\\s*\\]`, 'g'), '$1.$2');

  const modules = new Map<string, string>();
  const functions = new Map<string, string>();
  // Python: `import shutil as s`, `from shutil import rmtree as r, move`.
  for (const m of text.matchAll(new RegExp(`\\bimport\\s+(${DOTTED})\\s+as\\s+(${IDENT})`, 'g')))
    modules.set(m[2]!, m[1]!);
  for (const m of text.matchAll(new RegExp(`\\bfrom\\s+(${DOTTED})\\s+import\\s+\\(?([^;\\n)]+)`, 'g')))
    for (const part of m[2]!.split(',')) {
      const [name, alias] = part.trim().split(/\s+as\s+/);
      if (name !== undefined && new RegExp(`^${IDENT}$`).test(name))
        functions.set((alias ?? name).trim(), `${m[1]!}.${name}`);
    }
  // JavaScript: `const f = require('fs')`, `import * as f from 'fs'`, `import f from 'fs'`.
  const required = `require\\s*\\(\\s*['"\`]([\\w:/.-]+)['"\`]\\s*\\)`;
  for (const m of text.matchAll(
    new RegExp(`\\b(?:const|let|var)\\s+(${IDENT})\\s*=\\s*${required}(?!\\s*\\.)`, 'g'),
  ))
    modules.set(m[1]!, moduleName(m[2]!));
  for (const m of text.matchAll(
    new RegExp(`\\bimport\\s+(?:\\*\\s+as\\s+)?(${IDENT})\\s+from\\s+['"]([\\w:/.-]+)['"]`, 'g'),
  ))
    modules.set(m[1]!, moduleName(m[2]!));
  // `const { rmSync: r } = require('fs')`, `import { rmSync as r } from 'fs'`.
  for (const m of text.matchAll(new RegExp(`\\{([^}]*)\\}\\s*=\\s*${required}`, 'g')))
    for (const part of m[1]!.split(',')) {
      const [name, alias] = part.trim().split(/\s*:\s*/);
      if (name !== undefined && new RegExp(`^${IDENT}$`).test(name))
        functions.set((alias ?? name).trim(), `${moduleName(m[2]!)}.${name}`);
    }
  for (const m of text.matchAll(/\bimport\s*\{([^}]*)\}\s*from\s*['"]([\w:/.-]+)['"]/g))
    for (const part of m[1]!.split(',')) {
      const [name, alias] = part.trim().split(/\s+as\s+/);
      if (name !== undefined && new RegExp(`^${IDENT}$`).test(name))
        functions.set((alias ?? name).trim(), `${moduleName(m[2]!)}.${name}`);
    }
  // Modules first, so that `f = s.rmtree` after `import shutil as s` reads `shutil.rmtree`.
  for (const [alias, name] of modules) {
    if (alias === name) continue;
    text = text.replace(new RegExp(`(?<![.\\w$])${escape(alias)}\\s*\\.`, 'g'), `${name}.`);
  }
  // `f = shutil.rmtree`, `const r = fs.rmSync`, `local r = …`: a dotted name not called.
  for (const m of text.matchAll(
    new RegExp(
      `(?:^|[;\\n{(]|\\b(?:const|let|var))\\s*(${IDENT})\\s*=\\s*(${IDENT}(?:\\.${IDENT})+)\\s*(?=[;\\n)]|$)`,
      'g',
    ),
  ))
    functions.set(m[1]!, m[2]!);
  for (const [alias, name] of functions) {
    if (alias === name) continue;
    text = text.replace(new RegExp(`(?<![.\\w$])${escape(alias)}(?=\\s*\\()`, 'g'), name);
  }
  return text;
}

/** A deleting function passed as a value: `map(shutil.rmtree, dirs)`, `dirs.forEach(fs.rmSync)`. */
const PASSED =
  /[(,]\s*(?:shutil\.rmtree|fs\.rmSync|fs\.rm|fs\.promises\.rm|fs\.unlinkSync|fs\.unlink|fs\.rmdirSync|os\.remove|os\.unlink|os\.rmdir|os\.removedirs|FileUtils\.rm_rf|FileUtils\.rm_r|FileUtils\.rm|File\.delete|rimraf(?:\.sync)?)\s*[,)]/;

export function passedDeletes(script: string): boolean {
  return PASSED.test(script);
}
