/**
 * Baton installed as a user installs it (decision 186): `npm pack`, then `npm install -g` of the
 * tarball into a temporary prefix, then the installed `baton` run from outside the checkout —
 * `--version`, `doctor`, and a dispatch in a new repository. No network: npm resolves Baton's
 * runtime dependencies from a loopback registry built from this checkout's node_modules
 * (test/support/registry.ts), with its own cache and config.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';
import { startLoopbackRegistry, type LoopbackRegistry } from '../support/registry.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const gitDir = dirname(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim());

let work: string;
let registry: LoopbackRegistry | undefined;
let t: TestBaton | undefined;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'baton-install-'));
});
afterAll(async () => {
  t?.cleanup();
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

/** npm with nothing of the caller's: its own home, cache and config, the loopback registry only. */
function npmEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: join(work, 'npm-home'),
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_userconfig: join(work, 'npmrc'),
    npm_config_registry: registry!.url,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

describe('a global install of the packed tarball', () => {
  it('gives a baton that runs doctor and a dispatch from any folder, with only Node and git', async () => {
    const started = Date.now();
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as { filename: string }[];
    const packedAt = Date.now();
    registry = await startLoopbackRegistry(root, join(work, 'registry'), (name) =>
      name.startsWith('@anthropic-ai/claude-agent-sdk-'),
    );
    const servedAt = Date.now();
    writeFileSync(join(work, 'npmrc'), '');
    const prefix = join(work, 'prefix');
    await run('npm', ['install', '--global', '--prefix', prefix, join(work, packed!.filename)], {
      cwd: work,
      env: npmEnv(),
    });
    const installedAt = Date.now();
    const kb = Number(execFileSync('du', ['-sk', prefix], { encoding: 'utf8' }).split('\t')[0]);
    console.log(
      `global install: pack ${packedAt - started} ms, registry of ${registry.served.length} packages ${servedAt - packedAt} ms, npm install -g ${installedAt - servedAt} ms, prefix ${(kb / 1024).toFixed(1)} MB`,
    );
    // npm went without nothing but optional packages (the Agent SDK's platform binaries among them).
    expect(registry.missing.filter((path) => !registry!.optional.has(path.slice(1)))).toEqual([]);

    // The installed baton, from a folder outside the checkout, with a PATH of Node, git and the prefix.
    t = new TestBaton();
    t.env.PATH = [join(prefix, 'bin'), dirname(process.execPath), gitDir].join(':');
    const baton = (args: string[], cwd = t!.root) =>
      run(join(prefix, 'bin', 'baton'), args, { cwd, env: t!.env }).catch(
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const version = await baton(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);

    const repo = t.repo();
    const doctor = await baton(['doctor', '--json'], repo);
    const checks = (JSON.parse(doctor.stdout) as { checks: { id: string; status: string; detail: string }[] })
      .checks;
    const status = Object.fromEntries(checks.map((c) => [c.id, c.status]));
    expect(status).toMatchObject({ node: 'ok', git: 'ok', supervisor: 'ok' });
    // The supervisor that answered is the installed one.
    expect(checks.find((c) => c.id === 'supervisor')?.detail).toContain(`version ${version.stdout.trim()}`);

    const script = t.script([{ say: 'Installed and working.' }]);
    const dispatched = await baton(
      ['dispatch', 'say hello', '--agent', 'scripted', '--script', script, '--wait', '--json'],
      repo,
    );
    expect(dispatched.stderr).toBe('');
    const sessions = JSON.parse((await baton(['ls', '--json'], repo)).stdout) as SessionView[];
    expect(sessions.map((s) => [s.agent, s.state])).toEqual([['scripted', 'ready_for_review']]);
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    // The supervisor running is the installed package's, not this checkout's.
    expect(ps).toContain(join(prefix, 'lib', 'node_modules', 'baton-workspace'));
  }, 600_000);
});
