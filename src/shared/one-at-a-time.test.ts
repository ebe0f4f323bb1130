import { describe, expect, it } from 'vitest';
import { OneAtATime } from './one-at-a-time.js';

describe('OneAtATime', () => {
  it('runs the work of one key in the order asked, a failure letting the next go, other keys alongside', async () => {
    const line = new OneAtATime();
    const seen: string[] = [];
    let release = (): void => undefined;
    const first = line.run('repo', async () => {
      seen.push('first started');
      await new Promise<void>((resolve) => (release = resolve));
      seen.push('first ended');
      throw new Error('first failed');
    });
    const second = line.run('repo', () => Promise.resolve(seen.push('second')));
    const elsewhere = await line.run('other', () => Promise.resolve(seen.push('elsewhere')));
    expect(line.busy('repo')).toBe(true);
    expect(elsewhere).toBe(2);
    release();
    await expect(first).rejects.toThrow('first failed');
    await second;
    expect(seen).toEqual(['first started', 'elsewhere', 'first ended', 'second']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(line.busy('repo')).toBe(false);
  });
});
