import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ensurePostgres, findPostgres } from './postgres.mjs';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-postgres-')));
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

function install(dir: string, names = ['initdb', 'pg_ctl', 'postgres']): string {
  for (const name of names) fake(join(dir, name));
  return dir;
}

const env = (dirs: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: dirs.join(delimiter),
  ...extra,
});

describe('findPostgres', () => {
  test('BATON_PG_BIN wins over PATH, which wins over the newest Debian version', () => {
    const debian = join(root, 'debian');
    install(join(debian, '13', 'bin'));
    const newest = install(join(debian, '15', 'bin'));
    install(join(debian, '9.6', 'bin'));
    const onPath = install(join(root, 'path'));
    const chosen = install(join(root, 'chosen'));

    expect(findPostgres(env([onPath], { BATON_PG_BIN: chosen }), debian)).toMatchObject({
      bin: chosen,
      initdb: join(chosen, 'initdb'),
      source: 'BATON_PG_BIN',
    });
    expect(findPostgres(env([onPath]), debian)).toMatchObject({
      bin: onPath,
      pgCtl: join(onPath, 'pg_ctl'),
      source: 'PATH',
    });
    expect(findPostgres(env([]), debian)).toMatchObject({
      bin: newest,
      postgres: join(newest, 'postgres'),
      source: `${debian}/15`,
    });
  });

  test('an initdb linked into PATH is followed to the folder that has pg_ctl and postgres beside it', () => {
    const real = install(join(root, 'lib', '15', 'bin'));
    const path = join(root, 'path');
    mkdirSync(path);
    symlinkSync(join(real, 'initdb'), join(path, 'initdb'));
    expect(findPostgres(env([path]), join(root, 'none'))?.bin).toBe(real);
  });

  test('a folder missing one of the three binaries is not a PostgreSQL', () => {
    const partial = install(join(root, 'partial'), ['initdb', 'pg_ctl']);
    expect(findPostgres(env([partial]), join(root, 'none'))).toBeUndefined();
  });

  test('a BATON_PG_BIN that lacks a binary is an error naming the variable and what is missing', () => {
    const partial = install(join(root, 'partial'), ['initdb']);
    expect(() => findPostgres(env([], { BATON_PG_BIN: partial }), join(root, 'none'))).toThrow(
      `BATON_PG_BIN is set to ${partial}, which has no pg_ctl, postgres`,
    );
  });
});

describe('ensurePostgres', () => {
  test('without PostgreSQL, and not root, it says the one apt-get command to run and installs nothing', async () => {
    const bin = join(root, 'bin');
    fake(join(bin, 'apt-get'));
    const result = await ensurePostgres({
      env: env([bin]),
      isRoot: false,
      debianRoot: join(root, 'none'),
      log: () => {},
    });
    expect(result).toEqual({
      ok: false,
      message: expect.stringContaining(
        'sudo apt-get update && sudo apt-get install -y postgresql',
      ) as unknown,
    });
  });

  test('as root with installing turned off it names the command without sudo', async () => {
    const bin = join(root, 'bin');
    fake(join(bin, 'apt-get'));
    const result = await ensurePostgres({
      env: env([bin]),
      isRoot: true,
      install: false,
      debianRoot: join(root, 'none'),
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.message).toContain('\n    apt-get update && apt-get install -y postgresql\n');
  });

  test('as root it runs apt-get update then install, and finds what it installed', async () => {
    const bin = join(root, 'bin');
    const debian = join(root, 'debian');
    const calls = join(root, 'calls');
    // A stand-in apt-get recording its arguments, and "installing" into the Debian root on install.
    writeFileSync(
      join(root, 'apt-get'),
      `#!/bin/sh\necho "$@" >> ${calls}\nif [ "$1" = install ]; then for b in initdb pg_ctl postgres; do mkdir -p ${debian}/16/bin; printf '#!/bin/sh\\n' > ${debian}/16/bin/$b; chmod +x ${debian}/16/bin/$b; done; fi\n`,
    );
    mkdirSync(bin);
    chmodSync(join(root, 'apt-get'), 0o755);
    symlinkSync(join(root, 'apt-get'), join(bin, 'apt-get'));
    const result = await ensurePostgres({
      env: env([bin, '/bin', '/usr/bin']),
      isRoot: true,
      install: true,
      debianRoot: debian,
      log: () => {},
    });
    expect(result).toMatchObject({ ok: true, bin: join(debian, '16', 'bin'), installed: true });
    expect(readFileSync(calls, 'utf8')).toBe('update\ninstall -y postgresql\n');
  });

  test('a failing apt-get is reported with its output and the command to run', async () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'apt-get'), '#!/bin/sh\necho "E: no network" >&2\nexit 100\n');
    chmodSync(join(bin, 'apt-get'), 0o755);
    const result = await ensurePostgres({
      env: env([bin]),
      isRoot: true,
      install: true,
      debianRoot: join(root, 'none'),
      log: () => {},
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/apt-get update failed \(100\):\nE: no network/);
  });
});
