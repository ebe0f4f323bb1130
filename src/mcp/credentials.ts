/**
 * A session's own credential for Baton's API: what the MCP server attached to a session presents,
 * so the supervisor knows which session is calling and lets it act as that session only.
 *
 * The supervisor mints one each time it starts a session's host and writes it to a file in the
 * session's door (mode 0600, inside the user's 0700 BATON_HOME): the agent's MCP configuration
 * carries the file's path, never the secret, because agents pass that configuration on their
 * command line where other users can read it. The file is the record: the supervisor checks a
 * presented credential against it (constant time), so checks survive a supervisor restart, and
 * deleting it revokes the credential — the host deletes it when it ends, the supervisor when it
 * finds a host gone. A respawn mints a new one.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { homePaths, sessionPaths } from '../shared/paths.js';

/** The credential file's name in the session's door. */
export const CREDENTIAL_FILE = 'mcp-credential';
/** The supervisor's address (`http://127.0.0.1:<port>`), beside the credential in the door. */
export const ADDRESS_FILE = 'address';

/**
 * The session's door: the one folder of Baton's state the session's agent sees, read-only, in its
 * sandbox (src/sandbox): its own credential and where the supervisor listens, nothing else —
 * never the token, the database, the session's control socket or another session's folder.
 */
export function doorPath(home: string, sessionId: string): string {
  return join(sessionPaths(home, sessionId).dir, 'door');
}
/** Tells a session credential from the supervisor's token at a glance, and carries the session id. */
const PREFIX = 'baton-session.';
const SESSION_ID = /^[0-9a-z]{4,40}$/;

export function credentialPath(home: string, sessionId: string): string {
  return join(doorPath(home, sessionId), CREDENTIAL_FILE);
}

/** Mints a new credential for the session (replacing any earlier one) and returns its file. */
export function mintCredential(home: string, sessionId: string): string {
  const file = credentialPath(home, sessionId);
  const credential = `${PREFIX}${sessionId}.${randomBytes(32).toString('base64url')}`;
  writeWhole(file, credential + '\n');
  if (supervisorPort !== undefined) writeDoorAddress(home, sessionId, supervisorPort);
  return file;
}

/** This supervisor's port once it listens: hosts started before (re-attached, respawned) get it then. */
let supervisorPort: number | undefined;

/**
 * Called by the supervisor once it listens: every live session's door (one holding a credential)
 * learns the port, and so does each one minted from now on.
 */
export function announceSupervisorPort(home: string, port: number): number {
  supervisorPort = port;
  let told = 0;
  let sessions: string[];
  try {
    sessions = readdirSync(homePaths(home).sessions);
  } catch {
    return 0;
  }
  for (const sessionId of sessions) {
    if (!SESSION_ID.test(sessionId) || !existsSync(credentialPath(home, sessionId))) continue;
    writeDoorAddress(home, sessionId, port);
    told++;
  }
  return told;
}

/**
 * Tells the session's door where the supervisor listens: at each host start and after each
 * supervisor start (its port may change), since the agent cannot read `supervisor.json`.
 */
export function writeDoorAddress(home: string, sessionId: string, port: number): void {
  writeWhole(join(doorPath(home, sessionId), ADDRESS_FILE), `http://127.0.0.1:${port}\n`);
}

/** The supervisor's address from the door holding `credentialFile`; undefined when it has none. */
export function readDoorAddress(credentialFile: string): string | undefined {
  try {
    const address = readFileSync(join(dirname(credentialFile), ADDRESS_FILE), 'utf8').trim();
    return /^http:\/\/127\.0\.0\.1:\d{1,5}$/.test(address) ? address : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole and renamed into place: a reader never sees half a file (the door is bound as a folder, so renames show). */
function writeWhole(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, file);
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
