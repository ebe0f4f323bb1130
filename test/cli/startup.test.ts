import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
beforeEach(() => {
  t = new TestBaton();
});
afterEach(() => t.cleanup());

/** Every module file a run loads, ESM and CommonJS, as Node's own debug log names them. */
async function modulesLoaded(args: string[], cwd: string): Promise<string> {
  const result = await t.run(args, { cwd, env: { NODE_DEBUG: 'esm,module' } });
  expect(result.code, result.stderr).toBe(0);
  return result.stderr;
}

describe('the read-only commands load only what they need', () => {
  it('run ls, peek, logs, wait, path and daemon status without zod or commander', async () => {
    const repo = t.repo();
    await t.ok(['dispatch', 'x', '--name', 'quick', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('quick', 'ready_for_review');
    for (const args of [
      ['ls'],
      ['ls', '--json'],
      ['peek', 'quick'],
      ['logs', 'quick'],
      ['daemon', 'status'],
      ['wait', 'quick'],
      ['path', 'quick'],
    ]) {
      const loaded = await modulesLoaded(args, repo);
      // The CLI's CommonJS bundle when the build made one (decision 441), else its ES module bundle
      // (decision 311), else the transpiled CLI.
      expect(loaded, args.join(' ')).toMatch(
        /dist\/cli-commands\/cli\.js|dist\/cli-bundle\/cli\.js|dist\/cli\/main\.js/,
      );
      expect(loaded, args.join(' ')).not.toMatch(/node_modules\/(zod|commander)\//);
    }
  });

  it('still loads commander for everything else, such as help', async () => {
    const repo = t.repo();
    expect(await modulesLoaded(['ls', '--help'], repo)).toMatch(/node_modules\/commander\//);
  });
});

describe('a supervisor listens before it loads its domains', () => {
  it('opens its port before SQLite and zod are loaded, and loads them after (decision 346)', async () => {
    const repo = t.repo();
    // The supervisor's stderr is its log: Node's own debug lines about each module it loads land
    // there in order with the log's JSON lines.
    const started = await t.run(['daemon', 'start'], { cwd: repo, env: { NODE_DEBUG: 'esm,module' } });
    expect(started.code, started.stderr).toBe(0);
    const log = readFileSync(join(t.home, 'supervisor.log'), 'utf8');
    const listening = log.indexOf('"msg":"listening"');
    const loaded = log.indexOf('"msg":"loaded"');
    expect(listening).toBeGreaterThan(-1);
    expect(loaded).toBeGreaterThan(listening);
    const before = log.slice(0, listening);
    expect(before).not.toMatch(/better-sqlite3/);
    expect(before).not.toMatch(/node_modules\/zod\/|\/dist\/shared\/config\.js|\/dist\/store\//);
    // Loaded after it listened (the check above would pass on a log that never names them).
    expect(log.slice(listening)).toMatch(/better-sqlite3/);
  });
});
