import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectShareMode, shareFolder } from './share.js';

let root: string;
let source: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-share-'));
  source = join(root, 'main', 'node_modules');
  mkdirSync(join(source, 'dep', 'lib'), { recursive: true });
  writeFileSync(join(source, 'dep', 'lib', 'index.js'), 'module.exports = 1;\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('sharing a folder', () => {
  it('hard-links every file: the same inode, no bytes duplicated', () => {
    const target = join(root, 'wt', 'node_modules');
    expect(shareFolder(source, target, 'hardlink')).toBe('hardlink');
    const a = statSync(join(source, 'dep', 'lib', 'index.js'));
    const b = statSync(join(target, 'dep', 'lib', 'index.js'));
    expect(b.ino).toBe(a.ino);
    expect(a.nlink).toBe(2);
  });

  it('links the folder itself as a symlink', () => {
    const target = join(root, 'wt', 'node_modules');
    expect(shareFolder(source, target, 'symlink')).toBe('symlink');
    expect(lstatSync(target).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(target, 'dep', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
  });

  it('detects a mode that really works here, and auto uses it', () => {
    const mode = detectShareMode(source, join(root, 'wt'));
    expect(['reflink', 'hardlink', 'symlink']).toContain(mode);
    expect(shareFolder(source, join(root, 'wt', 'node_modules'), 'auto')).toBe(mode);
  });

  it('leaves nothing half-made when a named mode fails', () => {
    const target = join(root, 'wt', 'node_modules');
    if (detectShareMode(source, join(root, 'wt')) === 'reflink') {
      // This file system clones: a forced clone succeeds, so check the failure with a missing source instead.
      expect(() => shareFolder(join(root, 'missing'), target, 'reflink')).toThrow();
    } else {
      expect(() => shareFolder(source, target, 'reflink')).toThrow();
    }
    expect(existsSync(target)).toBe(false);
  });
});
