import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BESIDE_NICENESS, LANES, beside } from './checks.mjs';

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
    expect(scripts.test).toContain('node scripts/checks.mjs -- vitest run');
  });
});

describe('the static checks beside a command (decision 358)', () => {
  const node = (code: string): string[] => [process.execPath, '-e', code];

  it('run at the same time as the command, at a lower priority, and fail the run when one fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-checks-'));
    try {
      const mark = join(dir, 'mark');
      const niceness = join(dir, 'niceness');
      // The command ends only once a check has written its mark: run one after the other, it would never end.
      const command = node(
        `const fs = require('node:fs'); const t = setInterval(() => fs.existsSync(${JSON.stringify(mark)}) && (clearInterval(t), process.exit(0)), 20);`,
      );
      const code = await beside(command, [
        [
          node(
            `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(niceness)}, String(require('node:os').getPriority())); fs.writeFileSync(${JSON.stringify(mark)}, '')`,
          ),
        ],
        [node('process.exit(2)')],
      ]);
      expect(code).toBe(1);
      expect(Number(readFileSync(niceness, 'utf8'))).toBe(BESIDE_NICENESS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answer with the command's own exit code when it fails, and 0 when everything passed", async () => {
    expect(await beside(node('process.exit(3)'), [[node('')]])).toBe(3);
    expect(await beside(node(''), [[node('')], [node('')]])).toBe(0);
  });
});
