/**
 * The user the test PostgreSQL runs as. initdb and postgres refuse to run as root, and test
 * machines and CI containers often run everything as root, so under root the harness creates a
 * system user, `baton-test`, with no login shell and no home folder: it exists only to own the
 * servers' data and run them. An existing `baton-test` that could log in is refused rather than
 * silently used.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { ServerUser } from './postgres-folders.js';

export const TEST_USER = 'baton-test';
/** Debian's convention for "no home": a path that must not exist. */
const NO_HOME = '/nonexistent';
const NO_LOGIN = /\/(nologin|false)$/;

/** Under root, the created user that owns the data and runs the server; otherwise none. */
export function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let entry = passwdEntry();
  if (entry === undefined) {
    try {
      execFileSync(
        'useradd',
        [
          '--system',
          '--no-create-home',
          '--home-dir',
          NO_HOME,
          '--shell',
          noLoginShell(),
          '--user-group',
          TEST_USER,
        ],
        { stdio: 'pipe' },
      );
    } catch (error) {
      // Two test files may race to create it; only a user that is still missing is a failure.
      if (passwdEntry() === undefined) throw error;
    }
    entry = passwdEntry();
  }
  if (entry === undefined) throw new Error(`useradd reported success, but there is no user ${TEST_USER}.`);
  if (!NO_LOGIN.test(entry.shell) || existsSync(entry.home)) {
    throw new Error(
      `The user ${TEST_USER} exists with shell ${entry.shell} and home ${entry.home}; the tests run PostgreSQL as a user that cannot log in and has no home. Remove it (userdel ${TEST_USER}) and the tests will create it.`,
    );
  }
  return { name: TEST_USER, uid: entry.uid, gid: entry.gid };
}

interface PasswdEntry {
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

function passwdEntry(): PasswdEntry | undefined {
  let line: string;
  try {
    line = execFileSync('getent', ['passwd', TEST_USER], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
  const [, , uid, gid, , home, shell] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), home: home ?? '', shell: shell ?? '' };
}

function noLoginShell(): string {
  return ['/usr/sbin/nologin', '/sbin/nologin'].find((path) => existsSync(path)) ?? '/bin/false';
}
