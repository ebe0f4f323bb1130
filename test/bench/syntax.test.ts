/**
 * `npm run bench` is not part of the suite (it takes minutes and wants a quiet machine), so a
 * merge that breaks one of its scripts would go unseen until someone measures: every script is
 * at least checked to parse.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = resolve(fileURLToPath(new URL('../../bench', import.meta.url)));

describe('the benchmark scripts', () => {
  const scripts = readdirSync(BENCH).filter((name) => name.endsWith('.mjs'));
  it('are there, the runner among them', () => expect(scripts).toContain('run.mjs'));
  it.each(scripts)('%s parses', (name) => {
    expect(() =>
      execFileSync(process.execPath, ['--check', join(BENCH, name)], { stdio: 'pipe' }),
    ).not.toThrow();
  });
});
