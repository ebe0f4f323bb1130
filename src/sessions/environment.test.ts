import { describe, expect, it } from 'vitest';
import { sessionEnvironment } from './environment.js';

describe("a session's environment", () => {
  const session = { id: 's1', name: 'fix-watcher', project_root: '/repo', branch: 'baton/fix-watcher' };

  it("is the user's environment plus the session's own variables", () => {
    const env = sessionEnvironment({ PATH: '/bin', ANTHROPIC_API_KEY: 'k', UNSET: undefined }, session);
    expect(env).toEqual({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      BATON_SESSION_ID: 's1',
      BATON_SESSION_NAME: 'fix-watcher',
      BATON_PROJECT_ROOT: '/repo',
      BATON_BRANCH: 'baton/fix-watcher',
    });
  });

  it("does not let the user's environment impersonate another session", () => {
    expect(sessionEnvironment({ BATON_SESSION_ID: 'other' }, session).BATON_SESSION_ID).toBe('s1');
  });

  it("keeps the supervisor's shared-store settings (the URL carries its password) from every agent", () => {
    const env = sessionEnvironment(
      {
        PATH: '/bin',
        BATON_STORE: 'postgres://baton:secret@db/baton',
        BATON_STORE_FLAG: 'postgres://baton:secret@db/baton',
        BATON_MACHINE_FLAG: 'box',
        BATON_MACHINE: 'box',
      },
      session,
    );
    expect(Object.keys(env)).not.toContain('BATON_STORE');
    expect(Object.keys(env)).not.toContain('BATON_STORE_FLAG');
    expect(Object.keys(env)).not.toContain('BATON_MACHINE_FLAG');
    expect(JSON.stringify(env)).not.toContain('secret');
    expect(env.BATON_MACHINE).toBe('box');
  });

  it('is a copy: changing it leaves the source alone', () => {
    const user = { PATH: '/bin' };
    sessionEnvironment(user, session).PATH = '/elsewhere';
    expect(user.PATH).toBe('/bin');
  });
});
