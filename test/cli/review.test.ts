/**
 * `baton review` through the real binary: scripted sessions make coupled changes in a real
 * repository (a watcher, an IPC handler importing it, tests of both), some committed and some
 * not; an unrelated session and two conflicting ones make groups of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupReview, ReviewGroupList } from '../../src/api/review.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { TestBaton } from '../support/baton.js';

const INDEX = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']
  .map((n, k) => `export const ${n} = ${k + 1};\n`)
  .join('');

describe('baton review', () => {
  const t = new TestBaton();
  let repo: string;
  afterAll(() => t.cleanup());

  beforeAll(async () => {
    repo = t.repo('app', {
      'src/watcher.ts': 'export function watch(path: string) {\n  return path;\n}\n',
      'src/ipc.ts':
        "import { watch } from './watcher.js';\n\nexport function handle(p: string) {\n  return watch(p);\n}\n",
      'src/index.ts': INDEX,
      'src/config.ts': 'export const port = 8080;\n',
      'docs/guide.md': '# Guide\n\nHow to use it.\n',
    });
    const dispatch = async (name: string, steps: unknown[], extra: Record<string, unknown> = {}) => {
      await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps, extra)], {
        cwd: repo,
      });
      await t.waitForState(name, 'ready_for_review');
    };
    // Oldest first: the watcher's group is 1, the docs' is 2, whatever was dispatched in between.
    await dispatch(
      'watcher',
      [
        { edit: { path: 'src/watcher.ts', old: 'return path;', new: 'return debounce(path);' } },
        { edit: { path: 'src/index.ts', old: 'export const a = 1;', new: 'export const a = 10;' } },
      ],
      { onReply: [{ edit: { path: 'src/watcher.ts', old: 'debounce(path)', new: 'debounce(path, 50)' } }] },
    );
    await dispatch('docs', [
      { edit: { path: 'docs/guide.md', old: 'How to use it.', new: 'How to use the watcher.' } },
    ]);
    await dispatch(
      'ipc',
      [
        {
          edit: {
            path: 'src/ipc.ts',
            old: '  return watch(p);\n}\n',
            new: '  return watch(p);\n}\n\nexport function close() {\n  return true;\n}\n',
          },
        },
        { edit: { path: 'src/index.ts', old: 'export const i = 9;', new: 'export const i = 90;' } },
        { run: ['git', 'add', '-A'] },
        { run: ['git', 'commit', '-q', '-m', 'ipc: close'] },
      ],
      { onReply: [{ say: 'Noted: {{reply}}' }] },
    );
    await dispatch('tests', [
      {
        write: {
          path: 'test/watcher.test.ts',
          content:
            "import { watch } from '../src/watcher';\n// import { nothing } from '../docs/guide.md';\nwatch('x');\n",
        },
      },
      {
        write: {
          path: 'test/ipc.test.ts',
          content: "const { handle } = require('../src/ipc.js');\nhandle('y');\n",
        },
      },
    ]);
    await dispatch('left', [{ edit: { path: 'src/config.ts', old: '8080', new: '9090' } }]);
    await dispatch('right', [{ edit: { path: 'src/config.ts', old: '8080', new: '7070' } }]);
  }, 120_000);

  it('groups coupled sessions with the reasons, and lists an unrelated session as a group of its own', async () => {
    const list = await t.json<ReviewGroupList>(['review'], { cwd: repo });
    expect(list.projects).toHaveLength(1);
    const groups = list.projects[0]!.groups;
    expect(groups.map((g) => g.members.map((m) => m.name))).toEqual([
      ['watcher', 'ipc', 'tests'],
      ['docs'],
      ['left', 'right'],
    ]);
    const reasons = groups[0]!.reasons.map((r) => r.text);
    expect(reasons).toContain('watcher and ipc both change src/index.ts');
    expect(reasons).toContain('src/ipc.ts (ipc) imports src/watcher.ts (watcher)');
    expect(reasons).toContain('test/watcher.test.ts (tests) tests src/watcher.ts (watcher)');
    expect(reasons).toContain('test/ipc.test.ts (tests) tests src/ipc.ts (ipc)');
    expect(reasons).toContain('test/ipc.test.ts (tests) tests src/watcher.ts (watcher) through src/ipc.ts');
    expect(groups[1]!.reasons).toEqual([]);
    expect(groups[2]!.reasons.map((r) => r.text)).toEqual(['left and right both change src/config.ts']);

    const text = await t.ok(['review'], { cwd: repo });
    expect(text).toContain('Group 1  3 coupled sessions: watcher (2 files), ipc (2 files), tests (2 files)');
    expect(text).toContain('Group 2  docs (1 file)');
    expect(text).toContain('→ baton review 3');
  });

  it("shows a group's combined diff with every hunk attributed to the session that wrote it", async () => {
    const view = await t.json<GroupReview>(['review', '1'], { cwd: repo });
    expect(view.files.map((f) => f.path)).toEqual([
      'src/index.ts',
      'src/ipc.ts',
      'src/watcher.ts',
      'test/ipc.test.ts',
      'test/watcher.test.ts',
    ]);
    const file = (path: string) => view.files.find((f) => f.path === path)!;
    // Two sessions' edits to one file, merged: each hunk names its own writer.
    expect(file('src/index.ts').hunks.map((h) => h.sessions)).toEqual([['watcher'], ['ipc']]);
    expect(file('src/index.ts').hunks[1]!.lines.filter((l) => l.kind !== ' ')).toEqual([
      { kind: '-', text: 'export const i = 9;', old: 9, new: null, by: ['ipc'] },
      { kind: '+', text: 'export const i = 90;', old: null, new: 9, by: ['ipc'] },
    ]);
    expect(file('src/watcher.ts').hunks.map((h) => h.sessions)).toEqual([['watcher']]);
    expect(file('src/ipc.ts').hunks.map((h) => h.sessions)).toEqual([['ipc']]);
    expect(file('test/ipc.test.ts')).toMatchObject({
      status: 'added',
      sessions: ['tests'],
      conflict: null,
      state: 'none',
    });
    expect(view.conflicts).toEqual([]);

    // A session named instead of a number finds its group.
    expect((await t.json<GroupReview>(['review', 'ipc'], { cwd: repo })).number).toBe(1);

    const text = await t.ok(['review', '1'], { cwd: repo });
    expect(text).toMatch(/@@ -1,4 \+1,4 @@.*watcher\n/);
    expect(text).toMatch(/ipc +│\+export const i = 90;/);
    expect(text).toContain('(transcript: baton logs tests)');
  });

  it('says plainly when members conflict, and shows each side', async () => {
    const view = await t.json<GroupReview>(['review', '3'], { cwd: repo });
    expect(view.conflicts).toEqual([{ path: 'src/config.ts', sessions: ['left', 'right'] }]);
    const config = view.files[0]!;
    expect(
      config.hunks.map((h) => [h.sessions, h.lines.filter((l) => l.kind === '+').map((l) => l.text)]),
    ).toEqual([
      [['left'], ['export const port = 9090;']],
      [['right'], ['export const port = 7070;']],
    ]);
    expect(await t.ok(['review', '3'], { cwd: repo })).toContain(
      'CONFLICT: left and right change src/config.ts in ways that do not merge',
    );
  });

  it("keeps a file's state until its content changes, then resets it", async () => {
    expect(await t.ok(['review', '1', '--approve', 'src/watcher.ts'], { cwd: repo })).toContain(
      'src/watcher.ts: approved (group 1; written by watcher)',
    );
    await t.ok(['review', '1', '--viewed', 'src/ipc.ts'], { cwd: repo });
    let view = await t.json<GroupReview>(['review', '1'], { cwd: repo });
    expect(view.files.find((f) => f.path === 'src/watcher.ts')!.state).toBe('approved');
    expect(view.files.find((f) => f.path === 'src/ipc.ts')!.state).toBe('viewed');

    // The watcher session changes the file again (its reply turn edits it).
    const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'watcher' } });
    await t.ok(['reply', 'watcher', 'make the delay explicit'], { cwd: repo });
    await t.waitForEvent('watcher', (e) => e.type === 'turn.completed' && e.seq > session.lastSeq);
    view = await t.json<GroupReview>(['review', '1'], { cwd: repo });
    expect(view.files.find((f) => f.path === 'src/watcher.ts')!.state).toBe('none');
    expect(view.files.find((f) => f.path === 'src/ipc.ts')!.state).toBe('viewed');
    const events = (await t.ok(['events', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as WorkspaceEvent);
    expect(
      events
        .filter((e) => e.type.startsWith('review.file'))
        .map((e) => [e.type, (e.data as { path: string }).path]),
    ).toEqual([
      ['review.file_state_set', 'src/watcher.ts'],
      ['review.file_state_set', 'src/ipc.ts'],
      ['review.file_state_reset', 'src/watcher.ts'],
    ]);
  });

  it('sends a comment on a hunk to the session that wrote it, as a reply quoting file and lines', async () => {
    const sent = await t.json<{ sentTo: { name: string }[]; reply: string }>(
      ['review', '1', '--comment', 'src/ipc.ts:7-8', 'close', 'should', 'stop', 'the', 'watcher'],
      { cwd: repo },
    );
    expect(sent.sentTo.map((s) => s.name)).toEqual(['ipc']);
    expect(sent.reply).toContain('Review comment on src/ipc.ts, lines 7–8');
    expect(sent.reply).toContain('   7 + export function close() {');
    expect(sent.reply.endsWith('close should stop the watcher')).toBe(true);
    const turn = await t.waitForEvent(
      'ipc',
      (e) => e.type === 'turn.started' && (e.prompt ?? '').includes('Review comment on src/ipc.ts'),
    );
    expect(turn.type === 'turn.started' && turn.prompt).toContain('close should stop the watcher');
    const events = (await t.ok(['events', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as WorkspaceEvent);
    expect(events.find((e) => e.type === 'review.comment_sent')?.data).toMatchObject({
      path: 'src/ipc.ts',
      startLine: 7,
      endLine: 8,
      name: 'ipc',
      group: 1,
    });
    const text = await t.ok(['events']);
    expect(text).toMatch(/review\.comment_sent +app group 1: comment on src\/ipc\.ts:7 sent to ipc/);
    expect(text).toMatch(/review\.groups_changed +app: 1: watcher\+ipc\+tests, 2: docs, 3: left\+right/);
  });

  it('requests changes on a file, telling its writer what to change', async () => {
    const out = await t.ok(
      ['review', '1', '--request-changes', 'test/ipc.test.ts', 'assert', 'the', 'result', 'of', 'handle'],
      { cwd: repo },
    );
    expect(out).toContain(
      'test/ipc.test.ts: changes requested (group 1; written by tests)\nSent to tests as a reply.',
    );
    const turn = await t.waitForEvent(
      'tests',
      (e) => e.type === 'turn.started' && (e.prompt ?? '').includes('assert the result of handle'),
    );
    expect(turn.type === 'turn.started' && turn.prompt).toBe(
      'Changes requested on test/ipc.test.ts, in the combined review of group 1:\n\nassert the result of handle',
    );
    const view = await t.json<GroupReview>(['review', '1'], { cwd: repo });
    expect(view.files.find((f) => f.path === 'test/ipc.test.ts')!.state).toBe('changes_requested');

    const misplaced = await t.run(['review', '1', '--approve', 'test/ipc.test.ts', 'looks', 'good'], {
      cwd: repo,
    });
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('only --comment and --request-changes take text');
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const unknown = await t.run(['review', '9'], { cwd: repo });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('Project app has no group 9 (it has groups 1–3)');

    const unknownSession = await t.run(['review', 'nobody'], { cwd: repo });
    expect(unknownSession.code).toBe(3);
    expect(unknownSession.stderr).toContain('Project app has no group with a live session "nobody"');

    const unknownProject = await t.run(['review', '--project', 'elsewhere'], { cwd: repo });
    expect(unknownProject.code).toBe(3);
    expect(unknownProject.stderr).toContain('No project "elsewhere" has live sessions (projects: app)');

    const notInGroup = await t.run(['review', '2', '--approve', 'src/watcher.ts'], { cwd: repo });
    expect(notInGroup.code).toBe(2);
    expect(notInGroup.stderr).toContain(
      'src/watcher.ts is not among the files group 2 changes: docs/guide.md',
    );

    const empty = await t.run(['review', '1', '--comment', 'src/ipc.ts:6', ' '], { cwd: repo });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('The comment is empty');

    const outside = await t.run(['review', '1', '--comment', 'src/ipc.ts:1', 'why?'], { cwd: repo });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain(
      'src/ipc.ts:1 is outside the changed lines of src/ipc.ts (changed hunks cover lines 3–9)',
    );

    const badShape = await t.run(['review', '1', '--comment', 'src/ipc.ts', 'why?'], { cwd: repo });
    expect(badShape.code).toBe(2);
    expect(badShape.stderr).toContain('--comment takes <file>:<line>');

    const wrongWriter = await t.run(['review', '1', '--comment', 'src/ipc.ts:6', 'x', '--to', 'watcher'], {
      cwd: repo,
    });
    expect(wrongWriter.code).toBe(2);
    expect(wrongWriter.stderr).toContain('src/ipc.ts:6 was written by ipc, not watcher');

    const events = (await t.ok(['events', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as WorkspaceEvent);
    expect(events.filter((e) => e.type === 'review.comment_sent')).toHaveLength(1);
  });
});

describe('baton review, while sessions go on working', () => {
  const t = new TestBaton();
  afterAll(() => t.cleanup());

  /** Resolves with the first workspace event (replayed or live) that matches. */
  async function workspaceEvent(
    match: (event: WorkspaceEvent) => boolean,
    timeoutMs = 20_000,
  ): Promise<WorkspaceEvent> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let found: WorkspaceEvent | undefined;
    const seen: string[] = [];
    try {
      await t.client().followWorkspace(
        0,
        (event) => {
          seen.push(`${event.type} ${JSON.stringify(event.data)}`);
          if (found === undefined && match(event)) {
            found = event;
            controller.abort();
          }
        },
        controller.signal,
      );
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
    }
    if (found === undefined) throw new Error(`no matching workspace event; seen:\n${seen.join('\n')}`);
    return found;
  }

  it('regroups by itself when a session of a project under review ends a turn, and announces it', async () => {
    const repo = t.repo('lib', {
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': "import { a } from './a';\nexport const b = a;\n",
    });
    await t.ok(
      [
        'dispatch',
        'change a',
        '--name',
        'first',
        '--script',
        t.script([{ edit: { path: 'src/a.ts', old: '= 1', new: '= 2' } }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('first', 'ready_for_review');
    await t.ok(['review'], { cwd: repo });
    await workspaceEvent(
      (e) =>
        e.type === 'review.groups_changed' &&
        JSON.stringify(e.data.groups) === '[{"number":1,"sessions":["first"]}]',
    );

    // Nobody asks again: the second session's turn ending is what regroups.
    await t.ok(
      [
        'dispatch',
        'change b',
        '--name',
        'second',
        '--script',
        t.script([{ edit: { path: 'src/b.ts', old: 'b = a', new: 'b = a * 2' } }]),
      ],
      { cwd: repo },
    );
    const changed = await workspaceEvent(
      (e) =>
        e.type === 'review.groups_changed' &&
        e.data.groups.length === 1 &&
        e.data.groups[0]!.sessions.length === 2,
    );
    expect(changed.data).toEqual({ project: 'lib', groups: [{ number: 1, sessions: ['first', 'second'] }] });
  });

  it('couples other languages by path and module references: a Python test of a changed module', async () => {
    const repo = t.repo('py', {
      'app/watcher.py': 'def watch(path):\n    return path\n',
      'README.md': '# py\n',
    });
    const run = async (name: string, steps: unknown[]) => {
      await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
      await t.waitForState(name, 'ready_for_review');
    };
    await run('pywatch', [
      { edit: { path: 'app/watcher.py', old: 'return path', new: 'return path.strip()' } },
    ]);
    await run('pytest', [
      {
        write: {
          path: 'tests/test_watcher.py',
          content: 'from app.watcher import watch\n\ndef test_watch():\n    assert watch(" x ") == "x"\n',
        },
      },
    ]);
    await run('prose', [
      { edit: { path: 'README.md', old: '# py', new: '# py\n\nThe watcher strips paths.' } },
    ]);
    const list = await t.json<ReviewGroupList>(['review'], { cwd: repo });
    const groups = list.projects[0]!.groups;
    expect(groups.map((g) => g.members.map((m) => m.name))).toEqual([['pywatch', 'pytest'], ['prose']]);
    expect(groups[0]!.reasons.map((r) => r.text)).toEqual([
      'tests/test_watcher.py (pytest) tests app/watcher.py (pywatch)',
    ]);
  });
});
