// Time to a ready worktree (decision 59, "Setup runs in the session's host"): Baton's dispatch with
// copy + share + setup, from the command to the setup's end, against the same steps by hand (git
// worktree add, cp .env, cp -a node_modules, the setup command). Medians of 5. Run after `npm run
// build`: node bench/environments-ready.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = resolve(fileURLToPath(new URL('../bin/baton', import.meta.url)));
const RUNS = 5;
const root = mkdtempSync(join(tmpdir(), 'baton-bench-ready-'));
const env = {
  PATH: process.env.PATH,
  HOME: join(root, 'user'),
  BATON_HOME: join(root, 'home'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: join(root, 'gitconfig'),
};
writeFileSync(env.GIT_CONFIG_GLOBAL, '[user]\n\tname = Bench\n\temail = bench@example.com\n');
mkdirSync(env.HOME);
const repo = join(root, 'repo');
const sh = (cwd, cmd, ...args) => execFileSync(cmd, args, { cwd, env, encoding: 'utf8' });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const SETUP = 'node -e "require(\'./node_modules/pkg-0/f0.js\')" ; echo ready';

try {
  mkdirSync(join(repo, '.baton'), { recursive: true });
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n.env\n');
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  writeFileSync(
    join(repo, '.baton', 'config.json'),
    JSON.stringify({ worktree: { copy: ['.env'], share: ['node_modules'], setup: [SETUP] } }),
  );
  sh(repo, 'git', 'init', '-q');
  sh(repo, 'git', 'add', '.');
  sh(repo, 'git', 'commit', '-qm', 'init');
  writeFileSync(join(repo, '.env'), 'SECRET=1\n');
  for (let i = 0; i < 3000; i++) {
    const dir = join(repo, 'node_modules', `pkg-${Math.floor(i / 30)}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.js`), Buffer.alloc(100 * 1024, 32));
  }
  const script = join(root, 'script.json');
  writeFileSync(script, JSON.stringify({ steps: [] }));
  sh(repo, BIN, 'daemon', 'start');
  // The repository's setup runs only once its commands are trusted (decision 161), as a user would.
  sh(repo, BIN, 'trust', '--yes');

  const byHand = [];
  const baton = [];
  for (let r = 0; r < RUNS; r++) {
    let t0 = performance.now();
    const wt = join(root, 'manual', `w${r}`);
    sh(repo, 'git', 'worktree', 'add', '-q', '-b', `manual-${r}`, wt, 'HEAD');
    sh(repo, 'cp', '.env', join(wt, '.env'));
    sh(repo, 'cp', '-a', 'node_modules', join(wt, 'node_modules'));
    sh(wt, 'sh', '-c', SETUP);
    byHand.push(performance.now() - t0);

    t0 = performance.now();
    sh(repo, BIN, 'dispatch', 'bench', '--name', `b${r}`, '--script', script);
    await new Promise((resolveDone, reject) => {
      const follow = spawn(BIN, ['logs', `b${r}`, '-f', '--json'], { cwd: repo, env });
      let buffer = '';
      follow.stdout.on('data', (chunk) => {
        buffer += chunk;
        if (buffer.includes('"setup.finished"')) {
          follow.kill();
          if (!buffer.includes('"ok":true')) reject(new Error(buffer));
          else resolveDone();
        }
      });
    });
    baton.push(performance.now() - t0);
  }
  console.log(`ready worktree with .env, a 293 MB node_modules and one setup command, median of ${RUNS}:`);
  console.log(
    `  by hand (git worktree add, cp .env, cp -a node_modules, setup): ${median(byHand).toFixed(0)} ms`,
  );
  console.log(
    `  baton dispatch to setup.finished (copy, share, setup, in preparing): ${median(baton).toFixed(0)} ms (${(median(baton) / median(byHand)).toFixed(2)}×)`,
  );
} finally {
  try {
    // Their hosts would otherwise wait, idle, for half an hour.
    for (let r = 0; r < RUNS; r++) sh(repo, BIN, 'rm', `b${r}`);
    sh(repo, BIN, 'daemon', 'stop', '--all');
  } catch {
    // not running
  }
  rmSync(root, { recursive: true, force: true });
}
