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
      // The bundled CLI when the build made one (decision 311), else the transpiled one.
      expect(loaded, args.join(' ')).toMatch(/dist\/cli-bundle\/cli\.js|dist\/cli\/main\.js/);
      expect(loaded, args.join(' ')).not.toMatch(/node_modules\/(zod|commander)\//);
    }
  });

  it('still loads commander for everything else, such as help', async () => {
    const repo = t.repo();
    expect(await modulesLoaded(['ls', '--help'], repo)).toMatch(/node_modules\/commander\//);
  });
});
