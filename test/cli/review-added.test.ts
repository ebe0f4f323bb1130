/**
 * Review coupling through a file another live session adds: a test written in one session
 * imports a module that another session is still writing. The import names nothing in the test
 * session's own tree, so it is resolved against every live session's added files, and the two
 * are reviewed together, with the reason said.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ReviewGroupList } from '../../src/api/review.js';
import { TestBaton } from '../support/baton.js';

describe("review coupling through another session's new file", () => {
  const t = new TestBaton();
  afterAll(() => t.cleanup());

  it('groups a test with the session adding the module it imports, and leaves an unrelated one alone', async () => {
    const repo = t.repo('app', {
      'src/watcher.ts': 'export function watch(path: string) {\n  return path;\n}\n',
      'docs/guide.md': '# Guide\n',
    });
    const dispatch = async (name: string, steps: unknown[]) => {
      await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
      await t.waitForState(name, 'ready_for_review');
    };
    // The test first, as test-first work goes: its module does not exist yet in its own tree.
    await dispatch('tests', [
      {
        write: {
          path: 'test/debounce.test.ts',
          content: "import { debounce } from '../src/debounce.js';\ndebounce(() => 1, 10);\n",
        },
      },
    ]);
    await dispatch('docs', [{ write: { path: 'docs/guide.md', content: '# Guide\n\nMore.\n' } }]);
    // Another session adds the module, committed in part: a new file either way.
    await dispatch('debounce', [
      {
        write: {
          path: 'src/debounce.ts',
          content:
            'export function debounce(f: () => unknown, ms: number) {\n  return setTimeout(f, ms);\n}\n',
        },
      },
      { run: ['git', 'add', '-A'] },
      { run: ['git', 'commit', '-qm', 'debounce'] },
    ]);

    const list = await t.json<ReviewGroupList>(['review'], { cwd: repo });
    const groups = list.projects[0]!.groups;
    expect(groups.map((g) => g.members.map((m) => m.name))).toEqual([['tests', 'debounce'], ['docs']]);
    expect(groups[0]!.reasons.map((r) => r.text)).toEqual([
      'test/debounce.test.ts (tests) tests src/debounce.ts (debounce)',
    ]);
    const text = await t.ok(['review'], { cwd: repo });
    expect(text).toContain('2 coupled sessions: tests (1 file), debounce (1 file)');
  });
});
