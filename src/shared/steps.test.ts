import { describe, expect, it } from 'vitest';
import { stepTimer } from './steps.js';

describe('stepTimer', () => {
  it('gives each step the time since the last mark, a repeated step the sum, and the total', () => {
    let now = 100;
    const steps = stepTimer(() => now);
    now = 130;
    steps.mark('validate');
    now = 180;
    steps.mark('worktree');
    now = 185;
    steps.mark('validate');
    now = 200;
    expect(steps.done()).toEqual({ validate: 35, worktree: 50, total: 100 });
  });
});
