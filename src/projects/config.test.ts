import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRepoConfig } from './config.js';

let root: string;
const write = (text: string): void => {
  mkdirSync(join(root, '.baton'), { recursive: true });
  writeFileSync(join(root, '.baton', 'config.json'), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-repo-config-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a repository's config", () => {
  it('is empty when the repository has none', () => {
    expect(loadRepoConfig(root)).toEqual({});
  });

  it('reads each section', () => {
    write(
      JSON.stringify({
        merge: { check: ['npm', 'test'], checkTimeoutSeconds: 90 },
        pr: { remote: 'fork' },
        radar: { tellAgents: true },
      }),
    );
    expect(loadRepoConfig(root)).toEqual({
      merge: { check: ['npm', 'test'], checkTimeoutSeconds: 90 },
      pr: { remote: 'fork' },
      radar: { tellAgents: true },
    });
  });

  it('names an unknown key, however deep', () => {
    write(JSON.stringify({ merge: { chek: 'npm test' } }));
    expect(() => loadRepoConfig(root)).toThrow(/config\.json: .*chek/);
    write(JSON.stringify({ mergee: {} }));
    expect(() => loadRepoConfig(root)).toThrow(/mergee/);
  });

  it('refuses __proto__, constructor and prototype as names, saying which (decision 332)', () => {
    write('{"agents": {"__proto__": {"claude": {"skills": ["x"]}}}}');
    expect(() => loadRepoConfig(root)).toThrow(
      /config\.json: agents\.__proto__: "__proto__" cannot be a name/,
    );
    write(JSON.stringify({ routines: { constructor: { cron: '0 3 * * *', prompt: 'tidy' } } }));
    expect(() => loadRepoConfig(root)).toThrow(/routines\.constructor: "constructor"/);
    write(JSON.stringify({ env: { vars: { prototype: '1' } } }));
    expect(() => loadRepoConfig(root)).toThrow(/prototype/);
  });

  it('names a bad value and bad JSON', () => {
    write(JSON.stringify({ merge: { checkTimeoutSeconds: -1 } }));
    expect(() => loadRepoConfig(root)).toThrow(/merge\.checkTimeoutSeconds/);
    write('{ "merge": ');
    expect(() => loadRepoConfig(root)).toThrow(/is not valid JSON/);
  });

  it('takes the idle rule as false or minutes, and names an action it does not have or a bad time', () => {
    write(JSON.stringify({ watchdog: { idle: { minutes: 45 } } }));
    expect(loadRepoConfig(root).watchdog).toEqual({ idle: { minutes: 45 } });
    write(JSON.stringify({ watchdog: { idle: false } }));
    expect(loadRepoConfig(root).watchdog).toEqual({ idle: false });
    write(JSON.stringify({ watchdog: { idle: { minutes: 45, action: 'stop' } } }));
    expect(() => loadRepoConfig(root)).toThrow(/watchdog\.idle.*"action"/);
    write(JSON.stringify({ watchdog: { idle: { minutes: 0 } } }));
    expect(() => loadRepoConfig(root)).toThrow(/watchdog\.idle\.minutes/);
  });
});

describe("a repository's sync section", () => {
  it('is off unless asked, and reads the remote and the push mode', () => {
    write(JSON.stringify({}));
    expect(loadRepoConfig(root).sync).toBeUndefined();
    write(JSON.stringify({ sync: { remote: 'backup', push: 'turn' } }));
    expect(loadRepoConfig(root).sync).toEqual({ remote: 'backup', push: 'turn' });
  });

  it('names an unknown key and a bad push mode or remote', () => {
    write(JSON.stringify({ sync: { remote: 'origin', pushes: 'turn' } }));
    expect(() => loadRepoConfig(root)).toThrow(/sync.*"pushes"/);
    write(JSON.stringify({ sync: { push: 'always' } }));
    expect(() => loadRepoConfig(root)).toThrow(/sync\.push/);
    write(JSON.stringify({ sync: { remote: '--upload-pack=x' } }));
    expect(() => loadRepoConfig(root)).toThrow(/sync\.remote/);
  });
});
