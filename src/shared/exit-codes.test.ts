/**
 * One table of exit codes, each meaning once (decision 170): no code twice, every error code
 * mapped into it, the table in docs/exit-codes.md the same, and no command setting a code by a bare number.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatonError, EXIT_CODES, exitCodeFor, type ErrorCode } from './errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ERROR_CODES: ErrorCode[] = [
  'invalid_input',
  'too_large',
  'not_found',
  'ambiguous',
  'conflict',
  'not_a_repository',
  'unauthorized',
  'forbidden',
  'supervisor_unreachable',
  'agent_unavailable',
  'host_unresponsive',
  'disk_full',
  'store_unreachable',
  'internal',
];

/** The "Exit codes" table of docs/exit-codes.md: code → meaning. */
function documentedTable(): Map<number, string> {
  const page = readFileSync(join(ROOT, 'docs', 'exit-codes.md'), 'utf8');
  expect(page, 'docs/exit-codes.md has a "| code | meaning |" table').toContain('\n| code | meaning |\n');
  const table = page.slice(page.indexOf('\n| code | meaning |\n') + 1);
  const end = table.indexOf('\n\n');
  const body = end < 0 ? table : table.slice(0, end);
  const rows = new Map<number, string>();
  for (const line of body.split('\n')) {
    const match = /^\| (\d+) \| (.+) \|$/.exec(line);
    if (match === null) continue;
    const code = Number(match[1]);
    expect(rows.has(code), `docs/exit-codes.md lists ${code} twice`).toBe(false);
    rows.set(code, match[2]!);
  }
  return rows;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the exit codes', () => {
  it('give each code one meaning', () => {
    const codes = Object.values(EXIT_CODES).map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    const meanings = Object.values(EXIT_CODES).map((entry) => entry.meaning);
    expect(new Set(meanings).size).toBe(meanings.length);
  });

  it("map every error into the table, a store outage apart from `wait`'s needs input", () => {
    const table = new Set<number>(Object.values(EXIT_CODES).map((entry) => entry.code));
    for (const code of ERROR_CODES) expect(table.has(exitCodeFor(code)), code).toBe(true);
    expect(new BatonError('store_unreachable', 'down').exitCode).toBe(EXIT_CODES.storeUnreachable.code);
    expect(EXIT_CODES.storeUnreachable.code).not.toBe(EXIT_CODES.needsInput.code);
  });

  it('are printed in docs/exit-codes.md exactly as the table holds them', () => {
    const expected = new Map<number, string>(
      Object.values(EXIT_CODES).map((entry) => [entry.code, entry.meaning]),
    );
    expect(documentedTable()).toEqual(expected);
  });

  it('are set by the commands from the table, never as a bare number', () => {
    const bare: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src', 'cli')))
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/exitCode\s*=\s*\d|EXIT_\w+\s*=\s*\d/.test(line)) bare.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    expect(bare).toEqual([]);
  });
});
