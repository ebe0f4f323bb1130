// Worktree environments (decision 59, "Setup runs in the session's host"): disk for 20 worktrees
// sharing a 300 MB dependency folder, against 20 worktrees each with its own copy; and the time to a
// ready worktree. Run after `npm run build`: node bench/environments.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectShareMode, shareFolder } from '../dist/environments/index.js';

const WORKTREES = Number(process.env.BENCH_WORKTREES ?? 20);
const FILES = 3000; // 3000 × 100 KB = 300 MB, shaped like a dependency folder
const root = mkdtempSync(join(tmpdir(), 'baton-bench-env-'));
const du = (...paths) =>
  Number(
    execFileSync('du', ['-s', '-B1', ...paths], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1)
      .split('\t')[0],
  );
const duTotal = (...paths) =>
  Number(
    execFileSync('du', ['-s', '-c', '-B1', ...paths], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1)
      .split('\t')[0],
  );
const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
try {
  const main = join(root, 'main', 'node_modules');
  for (let i = 0; i < FILES; i++) {
    const dir = join(main, `pkg-${Math.floor(i / 30)}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.js`), Buffer.alloc(100 * 1024, i % 251));
  }
  const one = du(main);
  console.log(
    `dependency folder: ${FILES} files, ${mb(one)}; share mode here: ${detectShareMode(main, root)}`,
  );

  const shared = [];
  let t0 = performance.now();
  for (let w = 0; w < WORKTREES; w++) {
    const target = join(root, 'shared', `w${w}`, 'node_modules');
    shareFolder(main, target, 'auto');
    shared.push(target);
  }
  const shareMs = (performance.now() - t0) / WORKTREES;
  const sharedTotal = duTotal(main, ...shared);

  // The plain way, measured on 2 worktrees (each is a full copy, so 20 are 10× that).
  const plain = [];
  t0 = performance.now();
  for (let w = 0; w < 2; w++) {
    const target = join(root, 'plain', `w${w}`, 'node_modules');
    mkdirSync(join(root, 'plain', `w${w}`), { recursive: true });
    execFileSync('cp', ['-a', main, target]);
    plain.push(target);
  }
  const copyMs = (performance.now() - t0) / 2;
  const perCopy = duTotal(...plain) / 2;
  console.log(
    `${WORKTREES} worktrees sharing it: ${mb(sharedTotal)} with the main checkout (${(sharedTotal / one).toFixed(2)}× one checkout), ${shareMs.toFixed(0)} ms per worktree`,
  );
  console.log(
    `${WORKTREES} plain worktrees with their own copy: ${mb(one + perCopy * WORKTREES)} (${((one + perCopy * WORKTREES) / one).toFixed(1)}× one checkout; one copy measured ${mb(perCopy)}), cp -a ${copyMs.toFixed(0)} ms per worktree`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
