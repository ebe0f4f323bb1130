import { describe, expect, it } from 'vitest';
import type { SessionWithProject } from '../store/sessions.js';
import { checkReport, conflictReport } from './reports.js';
import { commitMessage } from './land.js';

const session = (name: string, prompt = `${name}: fix it\n\nin detail`): SessionWithProject =>
  ({ id: `id-${name}`, name, prompt, branch: `baton/${name}`, agent: 'scripted' }) as SessionWithProject;

describe('what landing work says', () => {
  it('titles a merge commit by the session and its prompt, a squash by the prompt alone', () => {
    expect(commitMessage(session('a'), 'main', false)).toBe(
      'Merge session a into main: a: fix it\n\nBaton session a (branch baton/a, agent scripted).',
    );
    expect(commitMessage(session('a'), 'main', true)).toBe(
      'a: fix it\n\nBaton session a (branch baton/a, agent scripted).\n\nPrompt:\na: fix it\n\nin detail',
    );
    expect(commitMessage(session('b', `\n${'x'.repeat(200)}`), 'main', true).split('\n')[0]).toHaveLength(
      100,
    );
  });

  it('tells a conflicting member which files and what it was merged after', () => {
    const [a, b] = [session('a'), session('b')];
    const text = conflictReport(b, 'main', ['src/x.ts', 'README.md'], [a, b]);
    expect(text).toMatch(
      /^Baton could not merge your work \(branch baton\/b\) into main \(with a merged before you\): it conflicts in\n {2}- src\/x\.ts\n {2}- README\.md\n/,
    );
    expect(text).toMatch(/`git merge main`/);
  });

  it('gives the check’s command, outcome and output, and says when the group was bisected', () => {
    const check = {
      outcome: 'timed_out' as const,
      command: 'npm test',
      durationMs: 1500,
      exitCode: null,
      outputTail: 'still running',
    };
    const text = checkReport(session('a'), 'main', check, [session('a'), session('b')], true);
    expect(text).toMatch(/bisected: the check passes without your work and fails with it/);
    expect(text).toMatch(/`npm test` did not finish within its time limit and was stopped after 1\.5 s/);
    expect(text).toMatch(/```\nstill running\n```/);
  });
});
