/**
 * What outlives a session, through the real binary: search finds a session's own dispatch prompt
 * and its "open it" line is a command that works; a landed session keeps its transcript, search
 * entries and log; a handoff `--from-branch` starts on the source's branch or its landed commit
 * (decision 231); import passes over the vendor files of sessions Baton ran itself (decision 232).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HandoffView, SearchResult } from '../../src/api/context.js';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { finishedSession } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

/** The "open it" command printed under a hit, run as the user would. */
async function openLine(output: string, session: string): Promise<{ code: number; stdout: string }> {
  const line = new RegExp(`^ +baton (logs ${session} --after \\d+)$`, 'm').exec(output);
  expect(line, output).not.toBeNull();
  const run = await t.run(line![1]!.split(' '), { cwd: repo });
  return { code: run.code, stdout: run.stdout };
}

describe('search', () => {
  it("finds a session's own dispatch prompt, and its open line opens the log at that event", async () => {
    await t.ok(
      [
        'dispatch',
        'frobnicate the quuxwidget parser',
        '--name',
        'frob',
        '--script',
        t.script([{ say: 'Done.' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('frob', 'ready_for_review');
    const result = await t.json<SearchResult>(['search', 'quuxwidget'], { cwd: repo });
    expect(result.hits).toEqual([expect.objectContaining({ sessionName: 'frob', kind: 'message' })]);
    const opened = await openLine(await t.ok(['search', 'quuxwidget'], { cwd: repo }), 'frob');
    expect(opened.code).toBe(0);
    expect(opened.stdout).toMatch(/frobnicate the quuxwidget parser/);
    // A reply is indexed once, though it is both a message and its turn's prompt.
    await t.ok(['reply', 'frob', 'now the zebrafinch lexer'], { cwd: repo });
    await t.waitForState('frob', 'ready_for_review');
    // (The scripted agent answers "Noted: <the reply>", its own message.)
    const replies = (await t.json<SearchResult>(['search', 'zebrafinch'], { cwd: repo })).hits;
    expect(replies.filter((h) => !h.snippet.includes('Noted'))).toHaveLength(1);
  });
});

describe('a landed session keeps its reasoning', () => {
  it('transcript, search with a working open line, and a handoff from its landed commit', async () => {
    await finishedSession(t, repo, 'shipped', { committed: { 'feature.txt': 'feature\n' } });
    const merged = await t.run(['merge', 'shipped'], { cwd: repo });
    expect(merged.code, merged.stderr).toBe(0);
    const landed = t.git(repo, 'rev-parse', 'main').trim();

    const transcript = await t.run(['transcript', 'shipped'], { cwd: repo });
    expect(transcript.code, transcript.stderr).toBe(0);
    expect(transcript.stdout).toMatch(/^shipped \(scripted\)\n/);
    const found = await t.json<SearchResult>(['search', 'feature.txt'], { cwd: repo });
    expect(found.hits.map((h) => h.sessionName)).toContain('shipped');
    const opened = await openLine(await t.ok(['search', 'feature.txt'], { cwd: repo }), 'shipped');
    expect(opened.code).toBe(0);
    expect(opened.stdout).toMatch(/feature\.txt/);

    const view = await t.json<HandoffView>(
      ['handoff', 'shipped', '--to', 'scripted', '--from-branch', '--name', 'after', 'build on the feature'],
      { cwd: repo },
    );
    expect(view.session).toMatchObject({ name: 'after', baseCommit: landed, baseRef: 'main' });
  });
});

describe('baton handoff --from-branch', () => {
  it("starts the new session on the source's branch, landing where the source lands", async () => {
    const source = await finishedSession(t, repo, 'designer', {
      committed: { 'model.ts': 'export interface Upload { id: string }\n' },
    });
    const head = t.git(repo, 'rev-parse', source.branch).trim();
    const view = await t.json<HandoffView>(
      [
        'handoff',
        'designer',
        '--to',
        'scripted',
        '--from-branch',
        '--name',
        'migrator',
        'write the migration',
      ],
      { cwd: repo },
    );
    expect(view.session).toMatchObject({ name: 'migrator', baseCommit: head, baseRef: 'main' });
    expect(readFileSync(join(view.session!.worktree, 'model.ts'), 'utf8')).toContain('interface Upload');
    // Without it, the new session starts from the base, as before.
    const plain = await t.json<HandoffView>(
      ['handoff', 'designer', '--to', 'scripted', '--name', 'fresh', 'write the docs'],
      { cwd: repo },
    );
    expect(plain.session?.baseCommit).toBe(t.git(repo, 'rev-parse', 'main').trim());
    const sessions = await t.json<SessionView[]>(['ls']);
    expect(sessions.map((s) => s.name).sort()).toEqual(['designer', 'fresh', 'migrator']);
  });
});

describe('baton import', () => {
  it('passes over the native files of sessions Baton ran itself, and imports the others', async () => {
    const own = await finishedSession(t, repo, 'ours', { committed: { 'a.txt': 'a\n' } });
    const claudeDir = join(t.root, 'claude-config');
    const line = (id: string, cwd: string, type: string, message: unknown): string =>
      JSON.stringify({ type, sessionId: id, cwd, timestamp: '2026-01-01T00:00:00Z', message });
    const write = (id: string, cwd: string, words: string): void => {
      const dir = join(claudeDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `${id}.jsonl`),
        [
          line(id, cwd, 'user', { role: 'user', content: words }),
          line(id, cwd, 'assistant', {
            role: 'assistant',
            content: [{ type: 'text', text: `About ${words}.` }],
          }),
        ].join('\n') + '\n',
      );
    };
    // The file a Baton session's Claude would write: in its worktree (here, a folder below it).
    write('11111111-2222-4333-8444-555555555555', join(own.worktree, 'sub'), 'the ocelot ledger');
    write('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee', '/home/user/elsewhere', 'the ocelot budget');
    const env = { CLAUDE_CONFIG_DIR: claudeDir };
    const first = await t.run(['import', '--claude'], { env });
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(
      /^claude: 2 files \(1 with new lines\), 2 new events in 1 sessions; .*; 1 files of sessions Baton ran itself passed over\.\n$/,
    );
    const hits = (await t.json<SearchResult>(['search', 'ocelot'])).hits;
    expect(hits.map((h) => h.snippet).join(' ')).not.toMatch(/ledger/);
    expect(hits).toHaveLength(2);
    // Again: still passed over, nothing new.
    const again = await t.run(['import', '--claude'], { env });
    expect(again.stdout).toMatch(
      /0 new events in 0 sessions.*1 files of sessions Baton ran itself passed over/,
    );
  });
});
