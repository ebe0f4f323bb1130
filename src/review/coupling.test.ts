import { describe, expect, it } from 'vitest';
import { coupledGroups, type MemberWork } from './coupling.js';

const member = (
  name: string,
  minute: number,
  changed: string[],
  edges: MemberWork['edges'] = [],
): MemberWork => ({
  id: `id-${name}`,
  name,
  createdAt: `2026-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`,
  changed,
  edges,
});

describe('coupledGroups', () => {
  it('joins sessions through shared files, imports and tests into one group, with each reason', () => {
    const groups = coupledGroups([
      member(
        'tests',
        3,
        ['test/watcher.test.ts'],
        [{ from: 'test/watcher.test.ts', to: 'src/watcher.ts', kind: 'tests' }],
      ),
      member('watcher', 1, ['src/watcher.ts', 'src/index.ts']),
      member(
        'ipc',
        2,
        ['src/ipc.ts', 'src/index.ts'],
        [{ from: 'src/ipc.ts', to: 'src/watcher.ts', kind: 'imports' }],
      ),
      member('docs', 4, ['docs/guide.md']),
    ]);
    expect(groups.map((g) => [g.number, g.members])).toEqual([
      [1, ['id-watcher', 'id-ipc', 'id-tests']],
      [2, ['id-docs']],
    ]);
    expect(groups[0]!.reasons.map((r) => r.text)).toEqual([
      'watcher and ipc both change src/index.ts',
      'src/ipc.ts (ipc) imports src/watcher.ts (watcher)',
      'test/watcher.test.ts (tests) tests src/watcher.ts (watcher)',
    ]);
  });

  it('numbers groups by their oldest member, so a newer session never renumbers older groups', () => {
    const old = [member('a', 1, ['a.ts']), member('b', 2, ['b.ts'])];
    expect(coupledGroups(old).map((g) => g.members)).toEqual([['id-a'], ['id-b']]);
    const later = coupledGroups([...old, member('c', 3, ['c.ts'])]);
    expect(later.map((g) => g.members)).toEqual([['id-a'], ['id-b'], ['id-c']]);
    // c couples with a: a's group keeps number 1 and b keeps 2.
    const joined = coupledGroups([...old, member('c', 3, ['a.ts'])]);
    expect(joined.map((g) => [g.number, g.members])).toEqual([
      [1, ['id-a', 'id-c']],
      [2, ['id-b']],
    ]);
  });

  it('ignores edges to files only the session itself changed, and names a test reached through one import', () => {
    const groups = coupledGroups([
      member('a', 1, ['src/a.ts', 'src/b.ts'], [{ from: 'src/a.ts', to: 'src/b.ts', kind: 'imports' }]),
      member(
        't',
        2,
        ['test/x.test.ts'],
        [{ from: 'test/x.test.ts', to: 'src/b.ts', kind: 'tests', via: 'src/helper.ts' }],
      ),
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.reasons.map((r) => r.text)).toEqual([
      'test/x.test.ts (t) tests src/b.ts (a) through src/helper.ts',
    ]);
  });

  it('says "all" when three sessions change one file', () => {
    const groups = coupledGroups([
      member('a', 1, ['x.ts']),
      member('b', 2, ['x.ts']),
      member('c', 3, ['x.ts']),
    ]);
    expect(groups[0]!.reasons.map((r) => r.text)).toEqual(['a, b and c all change x.ts']);
  });
});
