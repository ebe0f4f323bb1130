// The read-only CLI commands against a running supervisor, each taken in turn with a bare
// `node -e 0`: wall time and peak RSS (from /usr/bin/time), medians of N runs, and the ratio.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const TIME = '/usr/bin/time';

/** One run: wall ms (our clock, spawn to exit) and peak RSS in MB (the kernel's, via time -f). */
function once(argv, env, cwd) {
  const t0 = performance.now();
  const r = spawnSync(TIME, ['-f', '%M', ...argv], { env, cwd, encoding: 'utf8' });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  return { wall, rss: kb / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `commands` are argument lists for `baton`; `bin` is the baton entry; `env` carries BATON_HOME of
 * a running supervisor. Returns rows of { label, wall, rss, wallRatio, rssRatio } plus the bare row.
 */
export function run({ bin, env, cwd, commands, runs = 10 }) {
  if (!existsSync(TIME)) throw new Error(`${TIME} is needed for peak RSS (apt-get install time)`);
  const bare = { wall: [], rss: [] };
  const each = commands.map(() => ({ wall: [], rss: [] }));
  for (let i = 0; i < runs; i++) {
    for (let c = 0; c < commands.length; c++) {
      // Taken in turn, so both meet the same page cache and the same machine load.
      const b = once([process.execPath, '-e', '0'], env, cwd);
      bare.wall.push(b.wall);
      bare.rss.push(b.rss);
      const r = once([process.execPath, bin, ...commands[c]], env, cwd);
      each[c].wall.push(r.wall);
      each[c].rss.push(r.rss);
    }
  }
  const base = { wall: median(bare.wall), rss: median(bare.rss) };
  const rows = commands.map((args, c) => {
    const wall = median(each[c].wall);
    const rss = median(each[c].rss);
    return {
      label: `baton ${args.join(' ')}`,
      wall,
      rss,
      wallRatio: wall / base.wall,
      rssRatio: rss / base.rss,
    };
  });
  return { base, rows };
}

export function print({ base, rows }, log = console.log) {
  log(`bare \`node -e 0\`: ${base.wall.toFixed(1)} ms, ${base.rss.toFixed(1)} MB peak RSS`);
  for (const r of rows) {
    const met = r.wallRatio <= 1.5 && r.rssRatio <= 1.5 ? 'MET' : 'NOT MET';
    log(
      `  ${r.label.padEnd(28)} ${r.wall.toFixed(1).padStart(6)} ms (${r.wallRatio.toFixed(2)}×)  ${r.rss.toFixed(1).padStart(5)} MB (${r.rssRatio.toFixed(2)}×)  goal ≤ 1.5×: ${met}`,
    );
  }
}

// `node bench/cli.mjs` alone: measure against the supervisor of $BATON_HOME.
if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = new URL('../bin/baton', import.meta.url).pathname;
  const ref =
    process.argv[2] ??
    execFileSync(process.execPath, [bin, 'ls', '--json'], { encoding: 'utf8' }).match(/"id": "(\w+)"/)?.[1];
  const commands = [
    ['ls'],
    ['ls', '--json'],
    ['daemon', 'status'],
    ...(ref
      ? [
          ['peek', ref],
          ['logs', ref],
        ]
      : []),
  ];
  print(run({ bin, env: process.env, cwd: process.cwd(), commands, runs: Number(process.env.RUNS ?? 10) }));
}
