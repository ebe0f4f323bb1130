/**
 * The static checks `npm test` runs before vitest, in two lanes at once: the type checks and the
 * formatter in one, the linters in the other. Each tool is single-threaded, so on the 2-core
 * machine CI runs on the two lanes take about as long as the longer one (ESLint's) instead of the
 * sum (decision 273, "The static checks run in two lanes"). Each lane stops at its first failure,
 * its output is printed whole when it ends, and the command fails if either lane did.
 *
 *   node scripts/checks.mjs        what `npm run typecheck && npm run lint && npm run format:check` checks
 *
 * Plain JavaScript: it runs before anything is compiled. No shell: each step is a program and its
 * arguments.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const node = (script, ...args) => [process.execPath, join(ROOT, 'scripts', script), ...args];

/** The lanes: each a list of steps run one after another. */
export const LANES = [
  [
    [bin('tsc'), '-p', 'tsconfig.json', '--noEmit'],
    [bin('tsc'), '-p', 'web/tsconfig.json', '--noEmit'],
    [bin('prettier'), '--check', '.'],
  ],
  [
    [bin('eslint'), '.'],
    node('layers.mjs', '--check'),
    node('citations.mjs'),
    node('decisions.mjs'),
    node('links.mjs'),
  ],
];

/** Runs one step, its output collected; resolves with its exit code and output. */
function run(step) {
  return new Promise((resolve) => {
    const [command, ...args] = step;
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? 1,
        output: Buffer.concat(output).toString() + (signal ? `killed by ${signal}\n` : ''),
      }),
    );
  });
}

/** A step as it would be typed: programs by name, scripts from the checkout's root. */
const label = (step) =>
  step.map((part, i) => (i === 0 ? part.split('/').pop() : part.replace(`${ROOT}/`, ''))).join(' ');

/** Runs a lane's steps in order until one fails; returns whether all passed. */
async function lane(steps) {
  for (const step of steps) {
    const started = performance.now();
    const { code, output } = await run(step);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(output);
    console.log(`${code === 0 ? 'ok' : 'FAILED'}: ${label(step)} (${seconds} s)`);
    if (code !== 0) return false;
  }
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await Promise.all(LANES.map(lane));
  if (results.includes(false)) {
    console.error('The static checks failed: see the output above.');
    process.exit(1);
  }
}
