import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexSetup } from './setup.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-codex-setup-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a codex session's own setup", () => {
  it("uses the user's CODEX_HOME and the repository's AGENTS.md by default", () => {
    const env = { CODEX_HOME: join(root, 'user-codex'), PATH: '/bin' };
    expect(codexSetup(undefined, env, join(root, 'state'))).toEqual({ env, config: {} });
    expect(existsSync(join(root, 'state'))).toBe(false);
  });

  it('without `user`, gets a private CODEX_HOME that holds only the login, and without `project` reads no AGENTS.md', () => {
    const userHome = join(root, 'user-codex');
    mkdirSync(userHome);
    writeFileSync(join(userHome, 'auth.json'), '{}');
    writeFileSync(join(userHome, 'config.toml'), 'model = "x"\n');
    const setup = codexSetup([], { CODEX_HOME: userHome }, join(root, 'state'));
    expect(setup.env.CODEX_HOME).toBe(join(root, 'state', 'codex-home'));
    expect(readlinkSync(join(root, 'state', 'codex-home', 'auth.json'))).toBe(join(userHome, 'auth.json'));
    expect(existsSync(join(root, 'state', 'codex-home', 'config.toml'))).toBe(false);
    expect(setup.config).toEqual({ project_doc_max_bytes: 0 });
  });
});
