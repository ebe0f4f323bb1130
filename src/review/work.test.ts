import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotWork } from '../worktrees/snapshot.js';
import { WorkAnalyzer } from './work.js';

let repo: string;
let base: string;
const run = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
const write = (path: string, content: string): void => {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), content);
};

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-review-work-'));
  run('init', '-q', '-b', 'main');
  run('config', 'user.email', 't@example.com');
  run('config', 'user.name', 'T');
  write('src/watcher.ts', 'export const watch = 1;\n');
  write('src/ipc.ts', "import { watch } from './watcher.js';\nexport const handle = watch;\n");
  write('src/old.ts', "import './watcher';\n");
  write('notes.md', 'See src/watcher.ts.\n');
  run('add', '.');
  run('commit', '-qm', 'base');
  base = run('rev-parse', 'HEAD');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('WorkAnalyzer', () => {
  it('reads changed files and their imports from the snapshot, tests one import further, deletions included', async () => {
    write('src/ipc.ts', "import { watch } from './watcher.js';\nexport const handle = () => watch;\n");
    write('test/ipc.test.ts', "import { handle } from '../src/ipc';\nhandle();\n");
    write('docs/guide.md', 'Uses src/ipc.ts.\n');
    rmSync(join(repo, 'src/old.ts'));
    const { tree } = await snapshotWork(repo);
    const analysis = await new WorkAnalyzer().analyze(repo, base, tree);
    expect(analysis.changed.sort()).toEqual([
      'docs/guide.md',
      'src/ipc.ts',
      'src/old.ts',
      'test/ipc.test.ts',
    ]);
    expect(analysis.edges).toEqual([
      { from: 'src/ipc.ts', to: 'src/watcher.ts', kind: 'imports' },
      { from: 'test/ipc.test.ts', to: 'src/ipc.ts', kind: 'tests' },
      { from: 'test/ipc.test.ts', to: 'src/watcher.ts', kind: 'tests', via: 'src/ipc.ts' },
    ]);
    expect(analysis.texts.map((t) => t.path)).toEqual(['docs/guide.md']);
  });

  it('analyses a (base, tree) pair once, and scans a blob once whichever tree holds it', async () => {
    const analyzer = new WorkAnalyzer();
    write('src/ipc.ts', "import { watch } from './watcher.js';\nexport const handle = 2;\n");
    const first = await snapshotWork(repo);
    await analyzer.analyze(repo, base, first.tree);
    await analyzer.analyze(repo, base, first.tree);
    expect(analyzer.stats).toEqual({ analyses: 1, scanned: 1 });
    write('notes.md', 'Changed notes.\n');
    const second = await snapshotWork(repo);
    await analyzer.analyze(repo, base, second.tree);
    // A new tree, but src/ipc.ts is the same blob: not scanned again.
    expect(analyzer.stats).toEqual({ analyses: 2, scanned: 1 });
  });

  it('skips binary files when looking for references', async () => {
    writeFileSync(join(repo, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    const { tree } = await snapshotWork(repo);
    const analysis = await new WorkAnalyzer().analyze(repo, base, tree);
    expect(analysis.changed).toEqual(['logo.png']);
    expect(analysis.texts).toEqual([]);
  });
});
