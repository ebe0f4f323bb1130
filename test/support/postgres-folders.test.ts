import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { folderProblem, ownerUid, privateRoot } from './postgres-folders.js';
import { serverUser } from './postgres-user.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'baton-pg-folders-'));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const uid = process.getuid?.() ?? 0;

describe('the private folder of the test PostgreSQL', () => {
  test('a folder is trusted only if it is a real folder of the expected owner with mode 700, and says why not', () => {
    const dir = join(base, 'd');
    mkdirSync(dir, { mode: 0o700 });
    expect(folderProblem(dir, uid)).toBeUndefined();
    expect(folderProblem(dir, uid + 1)).toBe(`it is owned by uid ${uid}, not ${uid + 1}`);
    chmodSync(dir, 0o750);
    expect(folderProblem(dir, uid)).toBe('its mode is 750, not 700');
    symlinkSync(dir, join(base, 'link'));
    expect(folderProblem(join(base, 'link'), uid)).toBe('it is a symbolic link');
    writeFileSync(join(base, 'file'), '');
    expect(folderProblem(join(base, 'file'), uid)).toBe('it is not a folder');
    expect(folderProblem(join(base, 'missing'), uid)).toBe('it does not exist');
  });

  test('it is made 0700 for the server user, and kept on the next call', () => {
    const user = serverUser();
    const root = privateRoot(user, base);
    expect(root).toBe(join(base, `baton-pg-${uid}`));
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(root).uid).toBe(ownerUid(user));
    writeFileSync(join(root, 'kept'), '');
    expect(privateRoot(user, base)).toBe(root);
    expect(existsSync(join(root, 'kept'))).toBe(true);
  });

  test('a planted folder at its path with the wrong mode, or a link, is replaced, never reused', () => {
    const user = serverUser();
    const path = join(base, `baton-pg-${uid}`);
    mkdirSync(path, { mode: 0o777 });
    chmodSync(path, 0o777);
    writeFileSync(join(path, 'template-15-1'), 'planted');
    expect(privateRoot(user, base)).toBe(path);
    expect(readdirSync(path)).toEqual([]);
    expect(folderProblem(path, ownerUid(user))).toBeUndefined();

    rmSync(path, { recursive: true });
    const elsewhere = mkdtempSync(join(base, 'elsewhere-'));
    symlinkSync(elsewhere, path);
    expect(privateRoot(user, base)).toBe(path);
    expect(folderProblem(path, ownerUid(user))).toBeUndefined();
  });
});
