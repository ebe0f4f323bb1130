/**
 * What `baton` loads before the board's first frame (decision 421): the board's own entry of the
 * CLI bundle, React's production build, and Yoga's WebAssembly decoded without Node's fetch (which
 * would load undici, Node's HTTP client, only to read bytes the bundle already holds).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bundle = join(import.meta.dirname, '..', '..', 'dist', 'cli-bundle');

describe("the terminal board's load", () => {
  it("loads Ink, React and its screen from the CLI bundle's board entry, without undici", () => {
    const entry = join(bundle, 'board.js');
    expect(existsSync(entry)).toBe(true);
    const script = `const board = await import(${JSON.stringify(entry)});
await board.loadScreen();
process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => /undici/.test(m))));`;
    const loaded = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(loaded)).toEqual([]);
  });

  it("carries React's production build only, chosen at build time", () => {
    const chunks = readdirSync(bundle).filter((file) => file.endsWith('.js'));
    const text = chunks.map((file) => readFileSync(join(bundle, file), 'utf8'));
    // rolldown marks each module it inlines with its path: the development builds are not among them.
    expect(text.some((t) => t.includes('react-reconciler.production.js'))).toBe(true);
    expect(text.filter((t) => /react(-reconciler)?\.development\.js/.test(t))).toEqual([]);
    expect(text.filter((t) => t.includes('process.env.NODE_ENV'))).toEqual([]);
  });
});
