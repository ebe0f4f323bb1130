import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANES } from './checks.mjs';

const ROOT = join(import.meta.dirname, '..');

/** A package script's commands, as program and arguments (`npm run x` expanded, `tsc` by name). */
function commands(scripts: Record<string, string>, name: string): string[] {
  return scripts[name]!.split(' && ').flatMap((command) => {
    const run = /^npm run (\S+)$/.exec(command);
    return run === null ? [command] : commands(scripts, run[1]!);
  });
}

/** A lane step as it would be typed: the program's name, not its path. */
function typed(step: string[]): string {
  const [program, ...args] = step;
  const name = program!.split('/').pop()!;
  if (program === process.execPath) return ['node', ...args.map((a) => a.replace(`${ROOT}/`, ''))].join(' ');
  return [name, ...args].join(' ');
}

describe('the static checks npm test runs', () => {
  it('run every command of typecheck, lint and format:check, and nothing else', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const expected = ['typecheck', 'lint', 'format:check'].flatMap((name) => commands(scripts, name));
    const lanes = LANES.flat().map(typed);
    expect(lanes.sort()).toEqual(expected.sort());
    expect(scripts.test).toContain('node scripts/checks.mjs');
  });
});
