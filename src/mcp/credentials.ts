/**
 * A session's own credential for Baton's API: what the MCP server attached to a session presents,
 * so the supervisor knows which session is calling and lets it act as that session only.
 *
 * The supervisor mints one each time it starts a session's host and writes it to a file in the
 * session's folder (mode 0600, inside the user's 0700 BATON_HOME): the agent's MCP configuration
 * carries the file's path, never the secret, because agents pass that configuration on their
 * command line where other users can read it. The file is the record: the supervisor checks a
 * presented credential against it (constant time), so checks survive a supervisor restart, and
 * deleting it revokes the credential — the host deletes it when it ends, the supervisor when it
 * finds a host gone. A respawn mints a new one.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sessionPaths } from '../shared/paths.js';

/** The credential file's name in the session's folder. */
export const CREDENTIAL_FILE = 'mcp-credential';
/** Tells a session credential from the supervisor's token at a glance, and carries the session id. */
const PREFIX = 'baton-session.';
const SESSION_ID = /^[0-9a-z]{4,40}$/;

export function credentialPath(home: string, sessionId: string): string {
  return join(sessionPaths(home, sessionId).dir, CREDENTIAL_FILE);
}

/** Mints a new credential for the session (replacing any earlier one) and returns its file. */
export function mintCredential(home: string, sessionId: string): string {
  const file = credentialPath(home, sessionId);
  const credential = `${PREFIX}${sessionId}.${randomBytes(32).toString('base64url')}`;
  // Written whole and renamed into place: a reader never sees half a credential.
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, credential + '\n', { mode: 0o600 });
  renameSync(temporary, file);
  return file;
}

export function revokeCredential(home: string, sessionId: string): void {
  rmSync(credentialPath(home, sessionId), { force: true });
}

/** Whether a bearer value is shaped as a session credential (so it is checked as one, not as the token). */
export function isSessionCredential(value: string): boolean {
  return value.startsWith(PREFIX);
}

export type CredentialCheck =
  | { ok: true; sessionId: string }
  /** `malformed`: not a session credential at all; `revoked`: the session's credential is gone or another. */
  | { ok: false; why: 'malformed' | 'revoked'; sessionId?: string };

/** Checks a presented session credential against the session's file. */
export function checkCredential(home: string, presented: string): CredentialCheck {
  if (!isSessionCredential(presented)) return { ok: false, why: 'malformed' };
  const sessionId = presented.slice(PREFIX.length).split('.')[0] ?? '';
  if (!SESSION_ID.test(sessionId)) return { ok: false, why: 'malformed' };
  let expected: string;
  try {
    expected = readFileSync(credentialPath(home, sessionId), 'utf8').trim();
  } catch {
    return { ok: false, why: 'revoked', sessionId };
  }
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b)
    ? { ok: true, sessionId }
    : { ok: false, why: 'revoked', sessionId };
}

/** Reads the credential a session's MCP server presents, from the file its configuration names. */
export function readCredentialFile(file: string): string {
  return readFileSync(file, 'utf8').trim();
}
