/**
 * Finds the PostgreSQL server binaries (initdb, pg_ctl, postgres) the cluster tests start a
 * throwaway server with, and installs Debian's `postgresql` when it can. `npm test` runs this
 * before the build so `npm install && npm test` works on a machine with only Node.js and git;
 * test/support/postgres.ts calls the same finder.
 *
 * Plain JavaScript (types in postgres.d.mts): it runs before anything is compiled.
 */
import { readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { aptInstall, isExecutable, onPath } from './tools.mjs';

/** A folder holding initdb, pg_ctl and postgres; when set it must hold all three. */
export const BIN_VAR = 'BATON_PG_BIN';
/** The binaries the tests need, all from one folder so their versions agree. */
export const BINARIES = ['initdb', 'pg_ctl', 'postgres'];
/** Where Debian's packages put each major version's binaries. */
export const DEBIAN_ROOT = '/usr/lib/postgresql';
/** Set to 1 to report missing binaries instead of installing them. */
export const SKIP_INSTALL_VAR = 'BATON_SKIP_POSTGRES_INSTALL';

/**
 * The first folder holding all three binaries: BATON_PG_BIN, then PATH, then Debian's
 * /usr/lib/postgresql/<newest>/bin. A variable that is set must be right: a typo should not
 * silently fall through to another version.
 */
export function findPostgres(env = process.env, debianRoot = DEBIAN_ROOT) {
  const dir = env[BIN_VAR];
  if (dir !== undefined && dir !== '') {
    const missing = BINARIES.filter((name) => !isExecutable(join(dir, name)));
    if (missing.length > 0)
      throw new Error(
        `${BIN_VAR} is set to ${dir}, which has no ${missing.join(', ')}. Point it at PostgreSQL's bin folder, or unset it.`,
      );
    return binaries(dir, BIN_VAR);
  }
  const onPath = resolveOnPath(env);
  if (onPath !== undefined) return binaries(onPath, 'PATH');
  for (const version of versions(debianRoot)) {
    const bin = join(debianRoot, version, 'bin');
    if (BINARIES.every((name) => isExecutable(join(bin, name))))
      return binaries(bin, `${debianRoot}/${version}`);
  }
  return undefined;
}

/**
 * Finds PostgreSQL, or installs Debian's `postgresql` when running as root with apt-get (unless
 * `install` is false, or BATON_SKIP_POSTGRES_INSTALL=1), or returns the one command a person
 * should run. Never throws for missing binaries.
 */
export async function ensurePostgres({
  env = process.env,
  isRoot = process.getuid?.() === 0,
  install = env[SKIP_INSTALL_VAR] !== '1',
  debianRoot = DEBIAN_ROOT,
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const found = findPostgres(env, debianRoot);
  if (found !== undefined) return { ok: true, ...found };
  const aptGet = onPath('apt-get', env);
  if (aptGet === undefined)
    return {
      ok: false,
      message: missingMessage("your package manager's PostgreSQL server package (15 or newer)"),
    };
  const sudo = isRoot ? '' : 'sudo ';
  const command = `${sudo}apt-get update && ${sudo}apt-get install -y postgresql`;
  if (!isRoot || !install) return { ok: false, message: missingMessage(command) };

  log(
    "No PostgreSQL found for the cluster tests; installing Debian's postgresql (apt-get install -y postgresql)...",
  );
  const failed = await aptInstall(aptGet, 'postgresql', env);
  if (failed !== undefined) return { ok: false, message: `${failed}\n\n${missingMessage(command)}` };
  const installed = findPostgres(env, debianRoot);
  if (installed === undefined)
    return {
      ok: false,
      message: `apt-get installed postgresql, but no initdb, pg_ctl and postgres were found under ${debianRoot}.\n\n${missingMessage(command)}`,
    };
  return { ok: true, ...installed, installed: true };
}

function binaries(dir, source) {
  return {
    bin: dir,
    initdb: join(dir, 'initdb'),
    pgCtl: join(dir, 'pg_ctl'),
    postgres: join(dir, 'postgres'),
    source,
  };
}

function missingMessage(command) {
  return [
    `No PostgreSQL server found for the cluster tests (looked at ${BIN_VAR}, ${BINARIES.join(', ')} on PATH, and ${DEBIAN_ROOT}/<version>/bin).`,
    'Install it with:',
    '',
    `    ${command}`,
    '',
    `or set ${BIN_VAR} to the folder holding initdb, pg_ctl and postgres.`,
  ].join('\n');
}

/**
 * The folder of `initdb` on PATH, when pg_ctl and postgres sit beside it. Debian links only
 * some binaries into PATH, so the link is followed to the folder it points into.
 */
function resolveOnPath(env) {
  const initdb = onPath('initdb', env);
  if (initdb === undefined) return undefined;
  for (const dir of [dirname(initdb), dirname(realpath(initdb))]) {
    if (BINARIES.every((name) => isExecutable(join(dir, name)))) return dir;
  }
  return undefined;
}

function realpath(path) {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Major versions installed under Debian's root, newest first. */
function versions(root) {
  let names;
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((name) => /^\d+(\.\d+)?$/.test(name)).sort((a, b) => Number(b) - Number(a));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const result = await ensurePostgres();
    if (result.ok) {
      process.stdout.write(
        `Cluster tests use PostgreSQL from ${result.bin} (${result.installed ? 'just installed' : result.source}).\n`,
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
