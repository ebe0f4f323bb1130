/**
 * The radar after work lands, as a user meets it: two sessions edit the same line, one lands
 * with `baton merge`, later sessions start from the new tip. The landed line is nobody's change
 * but the base's: the one session still editing it is hot against its base alone, a session that
 * edits nothing collides with nobody, and a session editing other lines of the same file is soft
 * — in `baton conflicts`, in the API the page reads, and on the terminal board.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConflictsView } from '../../src/api/conflicts.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachBoardTest } from '../support/board.js';

const b = eachBoardTest();

const lines = (change: Record<number, string> = {}): string =>
  Array.from({ length: 40 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

const jsonLines = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);

describe('the radar after a landing', () => {
  it('never counts landed work as a later session’s change: hot only against the base, soft for other lines, nothing for a session that edits nothing', async () => {
    const { t, repo } = b;
    t.git(repo, 'config', 'user.email', 't@example.com');
    t.git(repo, 'config', 'user.name', 'T');
    const write = (path: string, content: string) => ({ write: { path, content } });
    // The repository asks the radar to tell agents: a false alarm would cost them turns.
    mkdirSync(join(repo, '.baton'), { recursive: true });
    writeFileSync(join(repo, '.baton', 'config.json'), JSON.stringify({ radar: { tellAgents: true } }));
    writeFileSync(join(repo, 'defu.ts'), lines());
    t.git(repo, 'add', 'defu.ts', '.baton/config.json');
    t.git(repo, 'commit', '-qm', 'defu');

    await b.dispatch('a', [write('defu.ts', lines({ 28: 'a' })), { run: ['git', 'commit', '-qam', 'a'] }]);
    await b.dispatch('b', [write('defu.ts', lines({ 28: 'b' }))]);
    await t.waitForState('a', 'ready_for_review');
    await t.waitForState('b', 'ready_for_review');
    await t.ok(['merge', 'a'], { cwd: repo });
    await t.workspaceEvent((e) => e.type === 'session.removed' && e.data.name === 'a');
    expect(t.git(repo, 'show', 'main:defu.ts')).toContain('a');

    // Started after the landing: c edits nothing, d edits another line of the same file.
    await b.dispatch('c', [{ say: 'Looked around; nothing to change.' }]);
    await b.dispatch('d', [write('defu.ts', lines({ 3: 'd', 28: 'a' }))]);
    await t.waitForState('c', 'ready_for_review');
    await t.waitForState('d', 'ready_for_review');

    const view = await t.json<ConflictsView>(['conflicts'], { cwd: repo });
    const found = view.conflicts.map((c) => [
      c.a.name,
      c.b.kind === 'session' ? c.b.name : `base ${c.b.ref}`,
      c.level,
    ]);
    expect(found.map(([x, y, level]) => [[x, y].sort().join(' ↔ '), level])).toEqual([
      ['b ↔ base main', 'hot'],
      ['b ↔ d', 'soft'],
    ]);
    const soft = view.conflicts.find((c) => c.level === 'soft')!;
    expect(soft.files).toMatchObject([{ path: 'defu.ts', level: 'soft', overlapping: false }]);

    const text = await t.ok(['conflicts'], { cwd: repo });
    expect(text).toMatch(/^soft {2}(b ↔ d|d ↔ b) {3}\[/m);
    expect(text).toMatch(/soft defu\.ts .*line (3|28) .*line (28|3) .*same file, other lines/);
    expect(text).toMatch(/^HOT {3}b ↔ base main/m);
    expect(text).toMatch(/2 collisions: 1 hot, 1 soft/);
    expect(text).not.toMatch(/\bc ↔|↔ c\b/);
    expect(await t.ok(['conflicts', 'c'], { cwd: repo })).toMatch(/^c collides with no live session/);

    // The page's and the board's badges: each other side under its own pair's level.
    const { badges } = await t.client().call('GET /api/conflicts/badges');
    const ids = new Map((await t.client().call('GET /api/sessions')).sessions.map((s) => [s.name, s.id]));
    const byName = (name: string) => badges[ids.get(name) ?? '-'];
    expect(byName('b')).toEqual({
      level: 'hot',
      with: [
        { name: 'main', level: 'hot', base: true },
        { name: 'd', level: 'soft', base: false },
      ],
    });
    expect(byName('d')).toEqual({ level: 'soft', with: [{ name: 'b', level: 'soft', base: false }] });
    expect(byName('c')).toBeUndefined();

    // No radar event ever named c: nobody was told about it.
    const events = jsonLines(await t.ok(['events', '--json'], { cwd: repo })) as WorkspaceEvent[];
    const named = events.filter(
      (e) => e.type.startsWith('radar.') && /"(name|a|b)":"c"|\bc ↔|↔ c\b/.test(JSON.stringify(e.data)),
    );
    expect(named).toEqual([]);

    const term = b.board({ columns: 160 });
    const screen = await term.waitFor(
      (s) => /\bb +.*⚠ hot: base · soft: d · /.test(s) && /\bd +.*⚠ soft: b · /.test(s),
    );
    expect(screen).toMatch(/\bc +scripted/);
    expect(screen).not.toMatch(/\bc +scripted.*⚠/);
  });
});
