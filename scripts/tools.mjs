/**
 * What the scripts that find or install the tests' tools (chromium.mjs, postgres.mjs) share:
 * looking a program up on PATH, and running one with an argument array.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import process from 'node:process';

/** The first executable file called `name` on the PATH of `env`. */
export function onPath(name, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, name);
    if (isExecutable(path)) return path;
  }
  return undefined;
}

export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Runs a command with an argument array; output is kept to explain a failure. */
export function run(file, args, env) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ code: null, signal: null, output: `${output}${error.message}` }));
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

/**
 * `apt-get update` and `apt-get install -y <pkg>` with `aptGet`, non-interactively. Returns
 * undefined when both succeeded, else what failed with its output.
 */
export async function aptInstall(aptGet, pkg, env) {
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', pkg]]) {
    const result = await run(aptGet, args, aptEnv);
    if (result.code !== 0)
      return `apt-get ${args.join(' ')} failed (${result.code ?? result.signal}):\n${result.output.trim()}`;
  }
  return undefined;
}
