import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

interface PackResult {
  name: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

/** What `npm pack` would put in the tarball (the build `npm test` ran first is what it packs). */
function packed(): PackResult {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [result] = JSON.parse(out) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed no result: ${out}`);
  return result;
}

describe('the package npm pack makes', () => {
  it('holds the built CLI, the page and the docs, and no sources, tests or benchmarks', () => {
    const result = packed();
    const paths = result.files.map((f) => f.path);
    expect(result.name).toBe('baton-workspace');
    for (const needed of [
      'bin/baton',
      'dist/cli/main.js',
      'dist/server/supervisor.js',
      'dist/sessions/host-main.js',
      // What the CLI and the launcher start (decision 222, "The supervisor and the host start from bundles").
      'dist/bundle/supervisor.js',
      'dist/bundle/host-main.js',
      // CommonJS, with the build's list of what may compile from V8's code cache (decisions 440, 441).
      'bin/package.json',
      'dist/bundle/package.json',
      'dist/bundle/code-cache.json',
      'dist/cli-commands/cli.js',
      'dist/cli-commands/package.json',
      'dist/cli-commands/code-cache.json',
      'web/dist/index.html',
      'web/dist/ssr/render.js',
      'skills/baton/SKILL.md',
      'README.md',
      'package.json',
    ])
      expect(paths, needed).toContain(needed);
    const stray = paths.filter((p) =>
      /^(src|test|bench|scripts|\.ci)\/|\.test\.(js|ts)$|(^|\/)testing\.js$|\.tsbuildinfo$/.test(p),
    );
    expect(stray).toEqual([]);
    // A cache the build's own runs wrote is this machine's: an install writes its own.
    expect(paths.filter((p) => p.includes('.code-cache/'))).toEqual([]);
    // Every module the entry loads is in the package: the compiled CLI's relative imports resolve.
    const main = readFileSync(join(root, 'dist', 'cli', 'main.js'), 'utf8');
    for (const [, spec] of main.matchAll(/from '(\.[^']+)'/g))
      expect(paths).toContain(join('dist', 'cli', spec!).replace(/\\/g, '/'));
    console.log(
      `npm pack: ${result.entryCount} files, ${(result.size / 1e6).toFixed(2)} MB packed, ${(result.unpackedSize / 1e6).toFixed(2)} MB unpacked`,
    );
  });

  it('installs the runtime only: the development-only agent binaries and tools stay devDependencies', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ baton: 'bin/baton' });
    for (const devOnly of ['@openai/codex', 'vitest', 'playwright-core', 'vite', 'prettier', 'eslint'])
      expect(Object.keys(pkg.dependencies), devOnly).not.toContain(devOnly);
  });
});
