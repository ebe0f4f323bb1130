import { describe, expect, it } from 'vitest';
import { importSpecifiers, isTest, mentions, resolveSpecifier, resolvedImports } from './imports.js';

describe('importSpecifiers', () => {
  it('finds import, export-from, import type, require and dynamic import', () => {
    const source = [
      "import a from './a.js';",
      "import type { B } from '../b';",
      "import './side-effect';",
      "export * from './c';",
      'export { d } from "./d";',
      "const e = require('./e');",
      "const f = await import('./f');",
      "import fs from 'node:fs';",
      "import g = require('./g');",
      "type H = typeof import('./h');",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual([
      './a.js',
      '../b',
      './side-effect',
      './c',
      './d',
      './e',
      './f',
      'node:fs',
      './g',
      './h',
    ]);
  });

  it('ignores comments, strings, template literals and regular expressions that only look like imports', () => {
    const source = [
      "// import x from './line-comment';",
      "/* import('./block-comment') */",
      'const s = "import q from \'./in-a-string\'";',
      "const t = `require('./in-a-template')`;",
      "const r = /import('.\\/in-a-regex')/;",
      "import real from './real';",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['./real']);
  });

  it('reads plain JavaScript with JSX in a .js file', () => {
    expect(
      importSpecifiers(
        "import React from 'react';\nexport const A = () => <b>{require('./b')}</b>;\n",
        'a.js',
      ),
    ).toEqual(['react', './b']);
  });

  it('reads TypeScript and JSX syntax around the imports', () => {
    const source =
      "function id<T>(x: T): T { return x }\nconst el = <div>{id(1)}</div>;\nconst lazy = () => import('./page');\nimport { type A } from './types';\n";
    expect(importSpecifiers(source, 'page.tsx')).toEqual(['./page', './types']);
  });
});

describe('resolveSpecifier', () => {
  const files = new Set([
    'src/watcher.ts',
    'src/ipc/index.ts',
    'src/view.tsx',
    'lib/old.js',
    'src/data.json',
    'src/styles.css',
    'src/m.mts',
  ]);

  it('resolves relative paths with the usual extensions and index files', () => {
    expect(resolveSpecifier('src/ipc.ts', './watcher', files)).toBe('src/watcher.ts');
    expect(resolveSpecifier('src/main.ts', './ipc', files)).toBe('src/ipc/index.ts');
    expect(resolveSpecifier('src/a/b.ts', '../view', files)).toBe('src/view.tsx');
    expect(resolveSpecifier('test/x.test.ts', '../lib/old', files)).toBe('lib/old.js');
    expect(resolveSpecifier('src/a.ts', './data.json', files)).toBe('src/data.json');
    expect(resolveSpecifier('src/a.ts', './styles.css', files)).toBe('src/styles.css');
  });

  it('takes a .js specifier to the .ts file TypeScript ESM compiles from (and .mjs to .mts)', () => {
    expect(resolveSpecifier('src/ipc.ts', './watcher.js', files)).toBe('src/watcher.ts');
    expect(resolveSpecifier('src/x.ts', './view.js', files)).toBe('src/view.tsx');
    expect(resolveSpecifier('src/x.ts', './m.mjs', files)).toBe('src/m.mts');
    expect(resolveSpecifier('src/x.ts', './ipc/index.js', files)).toBe('src/ipc/index.ts');
  });

  it('leaves packages, aliases, missing files and paths out of the repository unresolved', () => {
    expect(resolveSpecifier('src/a.ts', 'react', files)).toBeUndefined();
    expect(resolveSpecifier('src/a.ts', 'node:fs', files)).toBeUndefined();
    expect(resolveSpecifier('src/a.ts', '@/watcher', files)).toBeUndefined();
    expect(resolveSpecifier('src/a.ts', './missing', files)).toBeUndefined();
    expect(resolveSpecifier('src/a.ts', '../../outside', files)).toBeUndefined();
  });

  it('drops self-imports and duplicates', () => {
    expect(
      resolvedImports('src/watcher.ts', ['./watcher', './watcher.js', './ipc', './ipc/index'], files),
    ).toEqual(['src/ipc/index.ts']);
  });
});

describe('isTest', () => {
  it('knows the usual test file conventions', () => {
    for (const path of [
      'src/a.test.ts',
      'src/a.spec.js',
      'test/a.ts',
      'tests/unit/a.py',
      'src/__tests__/a.tsx',
    ])
      expect(isTest(path)).toBe(true);
    for (const path of ['src/testing.ts', 'src/latest/a.ts', 'src/contest.ts'])
      expect(isTest(path)).toBe(false);
  });
});

describe('mentions (other languages)', () => {
  it('finds a path, its extensionless or dotted module form, and the stem on an import line', () => {
    expect(mentions('see app/watcher.py for details', 'app/watcher.py')).toBe(true);
    expect(mentions('from app.watcher import Watcher\n', 'app/watcher.py')).toBe(true);
    expect(mentions('use crate::net::watcher;\n', 'src/net/watcher.rs')).toBe(true);
    expect(mentions('#include "watcher.h"\n', 'src/watcher.h')).toBe(true);
    expect(mentions('import watcher\n', 'lib/watcher.py')).toBe(true);
  });

  it('does not take a stem in prose, a generic stem, or a longer name for a reference', () => {
    expect(mentions('The watcher restarts on change.\n', 'lib/watcher.py')).toBe(false);
    expect(mentions('import utils\n', 'lib/utils.py')).toBe(false);
    expect(mentions('import watchers\n', 'lib/watcher.py')).toBe(false);
    expect(mentions('from app.watcher_old import x\n', 'app/watcher.py')).toBe(false);
  });
});
