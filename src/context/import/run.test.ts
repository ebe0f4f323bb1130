import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../store/db.js';
import { SearchIndex } from '../search-index.js';
import { importTranscripts } from './run.js';

let root: string;
let db: Db;
let search: SearchIndex;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-import-'));
  db = openDb(join(root, 'baton.db'));
  search = new SearchIndex(db);
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

const SESSION = '11111111-2222-3333-4444-555555555555';
const claudeLine = (type: string, message: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    type,
    sessionId: SESSION,
    cwd: '/repo',
    timestamp: '2026-01-01T00:00:00Z',
    message,
    ...extra,
  }) + '\n';

function claudeFile(): string {
  const dir = join(root, 'claude', 'projects', '-repo');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${SESSION}.jsonl`);
}

describe('importing native transcripts', () => {
  it('reads Claude Code lines, counts unknown types and malformed lines, and never stops for them', () => {
    const file = claudeFile();
    writeFileSync(
      file,
      claudeLine('user', { role: 'user', content: 'refactor the watcher' }) +
        JSON.stringify({ type: 'queue-operation', operation: 'enqueue' }) +
        '\n' +
        JSON.stringify({ type: 'hologram', v: 9 }) +
        '\n' +
        '{"type": "assistant", "message": {"content": [{"type": "te\n' +
        '[1, 2, 3]\n' +
        claudeLine('assistant', {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'watch the parent folder' },
            { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls' } },
          ],
        }) +
        claudeLine('user', {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'watcher.ts', is_error: false }],
        }),
    );
    const report = importTranscripts(db, search, 'claude', join(root, 'claude', 'projects'));
    expect(report).toMatchObject({
      files: 1,
      filesRead: 1,
      sessions: 1,
      events: 4,
      malformed: 2,
      unfinished: 0,
    });
    expect(report.skipped).toMatchObject({ 'queue-operation': 1, hologram: 1 });
    expect(search.search('watcher.ts', { kinds: ['tool_output'] })).toEqual([
      expect.objectContaining({ source: 'imported', sessionId: `claude-${SESSION}`, agent: 'claude' }),
    ]);
  });

  it('is incremental: a line still being written is read once finished, and nothing is read twice', () => {
    const file = claudeFile();
    writeFileSync(
      file,
      claudeLine('user', { role: 'user', content: 'first prompt' }) +
        claudeLine('assistant', { role: 'assistant', content: [{ type: 'text', text: 'half' }] }).slice(
          0,
          40,
        ),
    );
    const first = importTranscripts(db, search, 'claude', join(root, 'claude', 'projects'));
    expect(first).toMatchObject({ events: 1, unfinished: 1, malformed: 0 });
    // The rest of the half-written line arrives.
    appendFileSync(
      file,
      claudeLine('assistant', { role: 'assistant', content: [{ type: 'text', text: 'half' }] }).slice(40),
    );
    const second = importTranscripts(db, search, 'claude', join(root, 'claude', 'projects'));
    expect(second).toMatchObject({ events: 1, unfinished: 0, malformed: 0 });
    const third = importTranscripts(db, search, 'claude', join(root, 'claude', 'projects'));
    expect(third).toMatchObject({ filesRead: 0, events: 0 });
    const seqs = db.prepare('SELECT seq FROM imported_events ORDER BY seq').all() as { seq: number }[];
    expect(seqs.map((r) => r.seq)).toEqual([1, 2]);
  });

  it('reads a rewritten (shorter) file again from the start, without doubling anything', () => {
    const file = claudeFile();
    writeFileSync(
      file,
      claudeLine('user', { role: 'user', content: 'one' }) +
        claudeLine('user', { role: 'user', content: 'two' }),
    );
    importTranscripts(db, search, 'claude', join(root, 'claude', 'projects'));
    writeFileSync(file, claudeLine('user', { role: 'user', content: 'three' }));
    expect(importTranscripts(db, search, 'claude', join(root, 'claude', 'projects')).events).toBe(1);
    expect(search.search('one')).toEqual([]);
    expect(search.search('three')).toHaveLength(1);
  });

  it('reads Codex rollouts: the thread, messages, reasoning summaries, calls and outputs; injected context skipped', () => {
    const dir = join(root, 'codex', 'sessions', '2026', '01', '01');
    mkdirSync(dir, { recursive: true });
    const line = (type: string, payload: unknown): string =>
      JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', type, payload }) + '\n';
    writeFileSync(
      join(dir, 'rollout-2026-01-01T00-00-00-abc.jsonl'),
      line('session_meta', { id: 'thread-1', cwd: '/repo' }) +
        line('response_item', {
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: 'rules' }],
        }) +
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }],
        }) +
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'add the migration' }],
        }) +
        line('response_item', {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'column before backfill' }],
        }) +
        line('response_item', {
          type: 'custom_tool_call',
          call_id: 'c1',
          name: 'apply_patch',
          input: '*** Begin Patch\n*** Add File: m.sql\n+x\n*** End Patch\n',
        }) +
        line('response_item', {
          type: 'custom_tool_call_output',
          call_id: 'c1',
          output:
            'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nA m.sql\n',
        }) +
        line('event_msg', { type: 'token_count' }) +
        line('future_kind', {}),
    );
    writeFileSync(join(dir, 'notes.jsonl'), 'not a rollout\n');
    const report = importTranscripts(db, search, 'codex', join(root, 'codex', 'sessions'));
    expect(report).toMatchObject({ files: 1, sessions: 1, events: 4, malformed: 0 });
    expect(report.skipped).toMatchObject({ event_msg: 1, future_kind: 1, 'response_item/message': 2 });
    const body = db.prepare("SELECT body_json FROM imported_events WHERE type = 'tool.started'").get() as {
      body_json: string;
    };
    expect(JSON.parse(body.body_json)).toMatchObject({ tool: 'apply_patch', files: ['m.sql'] });
    const output = db.prepare("SELECT body_json FROM imported_events WHERE type = 'tool.finished'").get() as {
      body_json: string;
    };
    expect(JSON.parse(output.body_json)).toMatchObject({
      ok: true,
      exitCode: 0,
      output: 'Success. Updated the following files:\nA m.sql\n',
    });
  });

  it('finds nothing, and fails nothing, when the folder does not exist', () => {
    expect(importTranscripts(db, search, 'codex', join(root, 'nowhere'))).toMatchObject({
      files: 0,
      events: 0,
    });
  });
});

/**
 * A session file the real Gemini CLI 0.61 wrote through Baton's ACP adapter against the scripted
 * model server (the prompt "write notes", one approved `write_file`, then "Wrote notes."), with
 * its temp folder renamed. Its project's `.project_root` is written by the test.
 */
const GEMINI_FIXTURE = join(import.meta.dirname, 'fixtures', 'gemini-0.61', 'tmp');
const GEMINI_SESSION = 'c22b362b-7610-4681-a2d8-59d93224fba5';

function geminiStore(projectRoot: string): string {
  const tmp = join(root, 'gemini', 'tmp');
  cpSync(GEMINI_FIXTURE, tmp, { recursive: true });
  writeFileSync(join(tmp, 'repo', '.project_root'), projectRoot);
  // A subagent's own file, in a folder below chats/, is not a session of the user's.
  mkdirSync(join(tmp, 'repo', 'chats', GEMINI_SESSION), { recursive: true });
  writeFileSync(join(tmp, 'repo', 'chats', GEMINI_SESSION, 'sub.jsonl'), '{"sessionId":"sub"}\n');
  return tmp;
}

describe("importing Gemini CLI's own sessions", () => {
  it('reads a session file the real Gemini CLI wrote: the words, the tool call and its result, once', () => {
    const report = importTranscripts(db, search, 'gemini', geminiStore('/work/project/repo'));
    expect(report).toMatchObject({ files: 1, filesRead: 1, sessions: 1, malformed: 0, batonSessions: 0 });
    const session = db.prepare('SELECT * FROM imported_sessions').get() as Record<string, unknown>;
    expect(session).toMatchObject({
      id: `gemini-${GEMINI_SESSION}`,
      vendor: 'gemini',
      cwd: '/work/project/repo',
    });
    const events = (
      db.prepare('SELECT body_json FROM imported_events ORDER BY seq').all() as { body_json: string }[]
    ).map((r) => JSON.parse(r.body_json) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual([
      'message.added',
      'tool.started',
      'tool.finished',
      'message.added',
    ]);
    expect(events[0]).toMatchObject({ role: 'user', text: 'write notes' });
    expect(events[1]).toMatchObject({ tool: 'write_file', files: ['notes.txt'] });
    expect(events[2]).toMatchObject({ tool: 'write_file', ok: true });
    expect(events[2]!.output).toContain('Successfully created and wrote to new file');
    expect(events[3]).toMatchObject({ role: 'assistant', text: 'Wrote notes.' });
    // The injected context, the tool result the user line repeats and the metadata: skipped, counted.
    expect(report.skipped).toMatchObject({ metadata: 2, $set: 6, 'user/empty': 1 });
    expect(search.search('notes').length).toBeGreaterThan(0);

    const again = importTranscripts(db, search, 'gemini', join(root, 'gemini', 'tmp'));
    expect(again).toMatchObject({ filesRead: 0, events: 0 });
  });

  it('passes over a session Baton ran itself, by its worktree', () => {
    db.prepare(
      "INSERT INTO projects (id, name, root, created_at) VALUES ('p1', 'p', '/work/project', 'now')",
    ).run();
    db.prepare(
      `INSERT INTO sessions (id, project_id, name, agent, prompt, state, branch, base_ref, base_commit, worktree, created_at, updated_at)
       VALUES ('s1', 'p1', 'notes', 'gemini', 'write notes', 'ready_for_review', 'b', 'main', 'abc', '/work/project/repo', 'now', 'now')`,
    ).run();
    const report = importTranscripts(db, search, 'gemini', geminiStore('/work/project/repo'));
    expect(report).toMatchObject({ files: 1, batonSessions: 1, events: 0, sessions: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM imported_sessions').get()).toEqual({ n: 0 });
  });
});
