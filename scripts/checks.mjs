/**
 * The static checks `npm test` runs before vitest, in two lanes at once: the type checks and the
 * formatter in one, the linters in the other. Each tool is single-threaded, so on the 2-core
 * machine CI runs on the two lanes take about as long as the longer one (ESLint's) instead of the
 * sum (decision 273, "The static checks run in two lanes"). Each lane stops at its first failure,
 * its output is printed whole when it ends, and the command fails if either lane did.
 *
 *   node scripts/checks.mjs        what `npm run typecheck && npm run lint && npm run format:check` checks
 *   node scripts/checks.mjs -- <command> [args]
 *                                  the same checks beside a command (`npm test`: vitest), at a lower
 *                                  priority; fails if the command or any check does
 *
 * Beside the tests (decision 358, "The static checks run beside the tests, at a lower priority"):
 * two test workers leave much of the two cores idle while they wait on the processes they start,
 * so the checks, at nice 10, take that idle time instead of running alone before the first test.
 * A lane that fails prints its output at once; the others print theirs when the command ends, so
 * nothing is interleaved with the tests' own report.
 *
 * Plain JavaScript: it runs before anything is compiled. No shell: each step is a program and its
 * arguments.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
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

/** How much lower than the command beside them the checks run (`nice` 10: they take idle time first). */
export const BESIDE_NICENESS = 10;

/** Runs one step, its output collected; resolves with its exit code and output. */
function run(step, niceness = 0) {
  return new Promise((resolve) => {
    const [command, ...args] = step;
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    if (niceness !== 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, niceness);
      } catch {
        // Not allowed here: the check runs at the usual priority, which only costs time.
      }
    }
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

/**
 * Runs a lane's steps in order until one fails; returns whether all passed. `report` gets each
 * step's output and its line when the step ends (`held`: a passing step's report may wait).
 */
async function lane(steps, { niceness = 0, report = (text) => process.stdout.write(text) } = {}) {
  for (const step of steps) {
    const started = performance.now();
    const { code, output } = await run(step, niceness);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    report(`${output}${code === 0 ? 'ok' : 'FAILED'}: ${label(step)} (${seconds} s)\n`, code !== 0);
    if (code !== 0) return false;
  }
  return true;
}

/**
 * The checks beside `command` (program and arguments, its output inherited): resolves with the
 * exit code, the command's own if it failed, else 1 when a check failed, else 0. A failing check's
 * output is printed as it fails; passing ones are printed after the command, not into its report.
 */
export async function beside(command, lanes = LANES) {
  const held = [];
  const report = (text, failed) => (failed ? process.stdout.write(text) : held.push(text));
  const checks = Promise.all(lanes.map((steps) => lane(steps, { niceness: BESIDE_NICENESS, report })));
  const [program, ...args] = command;
  const code = await new Promise((resolve) => {
    const child = spawn(program, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`${program}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (exit) => resolve(exit ?? 1));
  });
  const results = await checks;
  process.stdout.write(held.join(''));
  if (results.includes(false)) console.error('The static checks failed: see the output above.');
  return code !== 0 ? code : results.includes(false) ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const separator = process.argv.indexOf('--');
  if (separator !== -1) {
    process.exit(await beside(process.argv.slice(separator + 1)));
  }
  const results = await Promise.all(LANES.map((steps) => lane(steps)));
  if (results.includes(false)) {
    console.error('The static checks failed: see the output above.');
    process.exit(1);
  }
}
