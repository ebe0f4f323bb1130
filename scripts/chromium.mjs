/**
 * Finds the Chrome or Chromium the browser tests drive, and installs Debian's when it can.
 * `npm test` runs this before vitest so `npm install && npm test` works on a machine that has
 * only Node.js and git; test/support/browser.ts calls the same finder to launch it.
 *
 * Plain JavaScript (types in chromium.d.mts): it runs before anything is compiled.
 */
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { aptInstall, isExecutable, onPath } from './tools.mjs';

/** Variables naming a binary, in the order they win. */
export const ENV_VARS = ['BATON_CHROMIUM', 'CHROME_PATH'];
/** Names looked up on PATH, in the order they win. */
export const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
/** Set to 1 to report a missing browser instead of installing it. */
export const SKIP_INSTALL_VAR = 'BATON_SKIP_CHROMIUM_INSTALL';

/** Where Playwright keeps the browsers it downloaded, newest build first within each kind. */
const PLAYWRIGHT_BUILDS = [
  { prefix: 'chromium-', binaries: ['chrome-linux64/chrome', 'chrome-linux/chrome'] },
  {
    prefix: 'chromium_headless_shell-',
    binaries: ['chrome-headless-shell-linux64/chrome-headless-shell', 'chrome-linux/headless_shell'],
  },
];

/**
 * The first Chrome/Chromium found: BATON_CHROMIUM, CHROME_PATH, then PATH, then Playwright's
 * cache. A variable that is set must name an executable: a typo should not silently fall
 * through to another browser.
 */
export function findChromium(env = process.env) {
  for (const name of ENV_VARS) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!isExecutable(value))
      throw new Error(
        `${name} is set to ${value}, which is not an executable file. Point it at a Chrome or Chromium binary, or unset it.`,
      );
    return { path: value, source: name };
  }
  for (const name of PATH_NAMES) {
    const path = onPath(name, env);
    if (path !== undefined) return { path, source: `${name} on PATH` };
  }
  const cache = env.PLAYWRIGHT_BROWSERS_PATH || join(env.HOME || homedir(), '.cache', 'ms-playwright');
  for (const { prefix, binaries } of PLAYWRIGHT_BUILDS) {
    for (const build of builds(cache, prefix)) {
      for (const binary of binaries) {
        const path = join(cache, build, binary);
        if (isExecutable(path)) return { path, source: "Playwright's browser cache" };
      }
    }
  }
  return undefined;
}

/**
 * Finds a browser, or installs Debian's `chromium` when running as root with apt-get (unless
 * `install` is false, or BATON_SKIP_CHROMIUM_INSTALL=1), or returns the one command a person
 * should run. Never throws for a missing browser.
 */
export async function ensureChromium({
  env = process.env,
  isRoot = process.getuid?.() === 0,
  install = env[SKIP_INSTALL_VAR] !== '1',
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const found = findChromium(env);
  if (found !== undefined) return { ok: true, ...found };
  const aptGet = onPath('apt-get', env);
  if (aptGet === undefined)
    return { ok: false, message: missingMessage('npx playwright-core install chromium') };
  const sudo = isRoot ? '' : 'sudo ';
  const command = `${sudo}apt-get update && ${sudo}apt-get install -y chromium`;
  if (!isRoot || !install) return { ok: false, message: missingMessage(command) };

  log(
    "No Chrome or Chromium found for the browser tests; installing Debian's chromium (apt-get install -y chromium)...",
  );
  const failed = await aptInstall(aptGet, 'chromium', env);
  if (failed !== undefined) return { ok: false, message: `${failed}\n\n${missingMessage(command)}` };
  const installed = findChromium(env);
  if (installed === undefined)
    return {
      ok: false,
      message: `apt-get installed chromium, but it is not on PATH.\n\n${missingMessage(command)}`,
    };
  return { ok: true, ...installed, installed: true };
}

function missingMessage(command) {
  return [
    `No Chrome or Chromium found for the browser tests (looked at ${ENV_VARS.join(', ')}, ${PATH_NAMES.join(', ')} on PATH, and Playwright's browser cache).`,
    'Install it with:',
    '',
    `    ${command}`,
    '',
    'or set BATON_CHROMIUM to a Chrome or Chromium binary.',
  ].join('\n');
}

/** Build folders such as chromium-1200, highest build number first. */
function builds(cache, prefix) {
  let names;
  try {
    names = readdirSync(cache);
  } catch {
    return [];
  }
  const number = (name) => Number(name.slice(prefix.length));
  return names
    .filter((name) => name.startsWith(prefix) && Number.isInteger(number(name)))
    .sort((a, b) => number(b) - number(a));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const result = await ensureChromium();
    if (result.ok) {
      process.stdout.write(
        `Browser tests use ${result.path} (${result.installed ? 'just installed' : result.source}).\n`,
      );
    } else {
      process.stderr.write(`${result.message}\n`);
      process.exitCode = 1;
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
