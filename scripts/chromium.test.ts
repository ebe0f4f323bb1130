import { spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ensureChromium, findChromium } from './chromium.mjs';

const SCRIPT = fileURLToPath(new URL('./chromium.mjs', import.meta.url));

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-chromium-')));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A real executable file that does nothing: the finder only looks, never runs it. */
function fake(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

/** An environment with only these folders on PATH and a HOME of its own (no Playwright cache). */
function envWith(dirs: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: dirs.join(delimiter), HOME: join(root, 'home'), ...extra };
}

describe('findChromium', () => {
  test('BATON_CHROMIUM wins over CHROME_PATH, which wins over PATH', () => {
    const bin = join(root, 'bin');
    const onPath = fake(join(bin, 'chromium'));
    const baton = fake(join(root, 'baton', 'chrome'));
    const chromePath = fake(join(root, 'chrome-path', 'chrome'));

    expect(findChromium(envWith([bin], { BATON_CHROMIUM: baton, CHROME_PATH: chromePath }))).toEqual({
      path: baton,
      source: 'BATON_CHROMIUM',
    });
    expect(findChromium(envWith([bin], { CHROME_PATH: chromePath }))).toEqual({
      path: chromePath,
      source: 'CHROME_PATH',
    });
    expect(findChromium(envWith([bin], { BATON_CHROMIUM: '', CHROME_PATH: '' }))).toEqual({
      path: onPath,
      source: 'chromium on PATH',
    });
  });

  test('on PATH the names are tried in order, each through every folder, before the next name', () => {
    const first = join(root, 'first');
    const second = join(root, 'second');
    fake(join(first, 'google-chrome-stable'));
    fake(join(first, 'google-chrome'));
    const browser = fake(join(second, 'chromium-browser'));
    expect(findChromium(envWith([first, second]))?.path).toBe(browser);

    const chromium = fake(join(second, 'chromium'));
    expect(findChromium(envWith([first, second]))?.path).toBe(chromium);

    const earlier = fake(join(first, 'chromium'));
    expect(findChromium(envWith([first, second]))?.path).toBe(earlier);

    rmSync(join(first, 'chromium'));
    rmSync(join(second, 'chromium'));
    rmSync(join(second, 'chromium-browser'));
    expect(findChromium(envWith([first, second]))?.path).toBe(join(first, 'google-chrome'));
  });

  test('a file without the executable bit, or a folder, is not a browser', () => {
    const bin = join(root, 'bin');
    mkdirSync(join(bin, 'chromium'), { recursive: true });
    writeFileSync(join(bin, 'chromium-browser'), '#!/bin/sh\n');
    expect(findChromium(envWith([bin]))).toBeUndefined();
  });

  test("Playwright's cache comes last, newest build first, full Chromium before the headless shell", () => {
    const bin = join(root, 'bin');
    const cache = join(root, 'home', '.cache', 'ms-playwright');
    fake(join(cache, 'chromium-1100', 'chrome-linux', 'chrome'));
    const newest = fake(join(cache, 'chromium-1200', 'chrome-linux64', 'chrome'));
    fake(
      join(cache, 'chromium_headless_shell-1300', 'chrome-headless-shell-linux64', 'chrome-headless-shell'),
    );
    expect(findChromium(envWith([bin]))).toEqual({ path: newest, source: "Playwright's browser cache" });

    const onPath = fake(join(bin, 'google-chrome-stable'));
    expect(findChromium(envWith([bin]))?.path).toBe(onPath);

    const elsewhere = join(root, 'browsers');
    const shell = fake(join(elsewhere, 'chromium_headless_shell-1300', 'chrome-linux', 'headless_shell'));
    expect(findChromium(envWith([], { PLAYWRIGHT_BROWSERS_PATH: elsewhere }))?.path).toBe(shell);
  });

  test('a variable naming something that is not an executable is an error that names it', () => {
    const missing = join(root, 'no-such-chrome');
    fake(join(root, 'bin', 'chromium'));
    expect(() => findChromium(envWith([join(root, 'bin')], { BATON_CHROMIUM: missing }))).toThrow(
      `BATON_CHROMIUM is set to ${missing}`,
    );
  });

  test('with nothing anywhere it finds nothing', () => {
    expect(findChromium(envWith([join(root, 'empty')]))).toBeUndefined();
  });
});

/** An apt-get that records each call and, on `install`, puts a fake chromium into `bin`. */
function fakeAptGet(bin: string, { fail = false } = {}): string {
  const calls = join(root, 'apt-calls.jsonl');
  const program = join(root, 'apt-get.cjs');
  writeFileSync(
    program,
    `const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ args, frontend: process.env.DEBIAN_FRONTEND }) + '\\n');
if (${fail}) { process.stderr.write('E: Unable to locate package chromium\\n'); process.exit(100); }
if (args[0] === 'install') { fs.writeFileSync(${JSON.stringify(join(bin, 'chromium'))}, '#!/bin/sh\\n'); fs.chmodSync(${JSON.stringify(join(bin, 'chromium'))}, 0o755); }
`,
  );
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\nexec "${process.execPath}" "${program}" "$@"\n`);
  chmodSync(join(bin, 'apt-get'), 0o755);
  return calls;
}

const readCalls = (file: string): unknown[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);

describe('ensureChromium', () => {
  test("as root with apt-get, it installs Debian's chromium non-interactively and finds it", async () => {
    const bin = join(root, 'bin');
    const calls = fakeAptGet(bin);
    const lines: string[] = [];
    const result = await ensureChromium({
      env: envWith([bin]),
      isRoot: true,
      log: (line) => lines.push(line),
    });
    expect(result).toEqual({
      ok: true,
      path: join(bin, 'chromium'),
      source: 'chromium on PATH',
      installed: true,
    });
    expect(readCalls(calls)).toEqual([
      { args: ['update'], frontend: 'noninteractive' },
      { args: ['install', '-y', 'chromium'], frontend: 'noninteractive' },
    ]);
    expect(lines.join('\n')).toContain('installing');
  });

  test('when apt-get fails it stops with apt-get’s output and the command to run', async () => {
    const bin = join(root, 'bin');
    fakeAptGet(bin, { fail: true });
    const result = await ensureChromium({ env: envWith([bin]), isRoot: true, log: () => undefined });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('apt-get update failed (100)');
    expect(result.message).toContain('E: Unable to locate package chromium');
    expect(result.message).toContain('    apt-get update && apt-get install -y chromium');
  });

  test('without installing, it gives the one command: sudo when not root, Playwright without apt-get', async () => {
    const bin = join(root, 'bin');
    const calls = fakeAptGet(bin);
    const asRoot = await ensureChromium({ env: envWith([bin]), isRoot: true, install: false });
    expect(asRoot.ok === false && asRoot.message).toContain(
      '\n    apt-get update && apt-get install -y chromium\n',
    );
    const asUser = await ensureChromium({ env: envWith([bin]), isRoot: false });
    expect(asUser.ok === false && asUser.message).toContain(
      '\n    sudo apt-get update && sudo apt-get install -y chromium\n',
    );
    const noApt = await ensureChromium({ env: envWith([join(root, 'empty')]), isRoot: true });
    expect(noApt.ok === false && noApt.message).toContain('\n    npx playwright-core install chromium\n');
    expect(() => readFileSync(calls)).toThrow();
  });
});

test('the script run by `npm test` exits 1 and prints the command on a machine without a browser', async () => {
  const bin = join(root, 'bin');
  fakeAptGet(bin);
  const child = spawn(process.execPath, [SCRIPT], {
    cwd: root,
    env: { PATH: bin, HOME: join(root, 'home'), BATON_SKIP_CHROMIUM_INSTALL: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(1);
  expect(stderr).toContain('No Chrome or Chromium found for the browser tests');
  expect(stderr).toMatch(/\n {4}(sudo )?apt-get update && (sudo )?apt-get install -y chromium\n/);
});
