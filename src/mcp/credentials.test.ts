import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  announceSupervisorPort,
  checkCredential,
  credentialPath,
  isSessionCredential,
  mintCredential,
  readCredentialFile,
  readDoorAddress,
  revokeCredential,
} from './credentials.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'baton-credentials-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('session credentials', () => {
  it('are minted into a file only the user may read, and check as their session', () => {
    const file = mintCredential(home, 'k3x9q2m7ab');
    expect(file).toBe(credentialPath(home, 'k3x9q2m7ab'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const credential = readCredentialFile(file);
    expect(isSessionCredential(credential)).toBe(true);
    expect(checkCredential(home, credential)).toEqual({ ok: true, sessionId: 'k3x9q2m7ab' });
  });

  it("do not pass for another session's, nor once revoked, nor after a new one is minted", () => {
    const first = readCredentialFile(mintCredential(home, 'aaaaaaaaaa'));
    mintCredential(home, 'bbbbbbbbbb');
    expect(checkCredential(home, first.replace('aaaaaaaaaa', 'bbbbbbbbbb'))).toEqual({
      ok: false,
      why: 'revoked',
      sessionId: 'bbbbbbbbbb',
    });
    const second = readCredentialFile(mintCredential(home, 'aaaaaaaaaa'));
    expect(second).not.toBe(first);
    expect(checkCredential(home, first)).toEqual({ ok: false, why: 'revoked', sessionId: 'aaaaaaaaaa' });
    revokeCredential(home, 'aaaaaaaaaa');
    expect(checkCredential(home, second)).toEqual({ ok: false, why: 'revoked', sessionId: 'aaaaaaaaaa' });
    revokeCredential(home, 'aaaaaaaaaa');
  });

  it('refuse what is not shaped as one, without touching the disk for a path in disguise', () => {
    expect(checkCredential(home, 'the-supervisor-token')).toEqual({ ok: false, why: 'malformed' });
    expect(checkCredential(home, 'baton-session.../../token.x')).toEqual({ ok: false, why: 'malformed' });
    expect(checkCredential(home, 'baton-session.UPPER.x')).toEqual({ ok: false, why: 'malformed' });
  });

  it('are written whole: the file holds one line', () => {
    const file = mintCredential(home, 'cccccccccc');
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
  });

  it('sit in the session’s door, which learns the supervisor’s port when it listens and keeps it for later mints', () => {
    const live = mintCredential(home, 'dddddddddd');
    const ended = mintCredential(home, 'eeeeeeeeee');
    revokeCredential(home, 'eeeeeeeeee');
    expect(readDoorAddress(live)).toBeUndefined();
    expect(announceSupervisorPort(home, 41_234)).toBe(1);
    expect(readDoorAddress(live)).toBe('http://127.0.0.1:41234');
    expect(readDoorAddress(ended)).toBeUndefined();
    expect(readDoorAddress(mintCredential(home, 'ffffffffff'))).toBe('http://127.0.0.1:41234');
  });
});
