import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insideRepository } from './plan.js';
import { fillTemplates, identifierOf } from './template.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-plan-'));
  mkdirSync(join(root, 'repo'));
  writeFileSync(join(root, 'secret.txt'), 'outside\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('paths from the config', () => {
  it('stay inside the repository, symbolic links followed', () => {
    expect(insideRepository(join(root, 'repo'), 'config/.env', 'worktree.copy[0]')).toBe(
      join('config', '.env'),
    );
    expect(() => insideRepository(join(root, 'repo'), '../secret.txt', 'worktree.copy[0]')).toThrow(
      /worktree\.copy\[0\] "\.\.\/secret\.txt" is outside the repository/,
    );
    expect(() => insideRepository(join(root, 'repo'), '.', 'worktree.copy[1]')).toThrow(
      /outside the repository/,
    );
    symlinkSync(join(root, 'secret.txt'), join(root, 'repo', 'link.txt'));
    expect(() => insideRepository(join(root, 'repo'), 'link.txt', 'worktree.copy[2]')).toThrow(
      /leads outside the repository through a symbolic link/,
    );
  });
});

describe('templated variables', () => {
  it('fill known names, keep $${ literal, and name an unknown one', () => {
    expect(
      fillTemplates(
        { URL: 'pg://h:${PORT}/app_${SESSION}', RAW: 'a $${PORT} b' },
        { PORT: '20001', SESSION: 'fix_login' },
      ),
    ).toEqual({
      URL: 'pg://h:20001/app_fix_login',
      RAW: 'a ${PORT} b',
    });
    expect(() => fillTemplates({ DB: '${NOPE}' }, { PORT: '1' })).toThrow(
      /env\.DB uses \$\{NOPE\}.*Known: \$\{PORT\}/,
    );
  });

  it('make a session name fit for identifiers', () => {
    expect(identifierOf('Fix-Login.2')).toBe('fix_login_2');
    expect(identifierOf('2fast')).toBe('s_2fast');
  });
});
