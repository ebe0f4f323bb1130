/**
 * Search, transcripts and handoff through the real binary, with the scripted agent: events are
 * searchable as soon as the board shows them, transcripts export redacted, and a handoff starts
 * a session carrying the pack.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HandoffView, SearchResult } from '../../src/api/context.js';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const SECRETS = {
  anthropic: 'sk-ant-api03-PLANTEDplantedPLANTED0123456789',
  github: 'ghp_PLANTEDplantedPLANTEDplanted01234567',
  env: 'planted-db-password-42',
};

async function finished(
  name: string,
  steps: unknown[],
  state: 'ready_for_review' | 'needs_input' = 'ready_for_review',
): Promise<SessionView> {
  await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
  return t.waitForState(name, state);
}

describe('baton search', () => {
  it('finds a phrase from a tool output, ranked, with a snippet that opens the session at that point', async () => {
    await finished('zoo', [
      { think: 'The quokka fixture is the one to change.' },
      { run: ['sh', '-c', 'echo quokka marmalade sandwich'] },
      { say: 'Done.' },
    ]);
    await finished('other', [{ say: 'Nothing about marsupials here.' }]);
    const result = await t.json<SearchResult>(['search', 'marmalade', 'sandwich'], { cwd: repo });
    const hit = result.hits.find((h) => h.kind === 'tool_output');
    expect(hit).toMatchObject({ sessionName: 'zoo', source: 'event', agent: 'scripted' });
    expect(hit?.snippet).toContain('«marmalade» «sandwich»');
    // The seq opens the session at that event.
    const events = (await t.ok(['logs', 'zoo', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string; output?: string });
    expect(events.find((e) => e.seq === hit?.seq)).toMatchObject({ type: 'tool.finished' });
    // Prefix matching, and the plain output names the session and how to open it.
    const plain = await t.ok(['search', 'quok'], { cwd: repo });
    expect(plain).toMatch(/^zoo#\d+ +reasoning/m);
    expect(plain).toMatch(/baton logs zoo --after \d+/);
  });

  it('filters by agent, session, kind and age', async () => {
    await finished('zoo', [{ say: 'The wombat plan is ready.' }]);
    expect((await t.json<SearchResult>(['search', 'wombat', '--agent', 'scripted'])).hits).toHaveLength(1);
    expect((await t.json<SearchResult>(['search', 'wombat', '--agent', 'codex'])).hits).toHaveLength(0);
    expect(
      (
        await t.json<SearchResult>([
          'search',
          'wombat',
          '--session',
          'zoo',
          '--since',
          '1d',
          '--kind',
          'message',
        ])
      ).hits,
    ).toHaveLength(1);
    expect((await t.json<SearchResult>(['search', 'wombat', '--kind', 'tool_output'])).hits).toHaveLength(0);
    expect((await t.json<SearchResult>(['search', 'wombat', '--since', '2000-01-01'])).hits).toHaveLength(1);
    expect(await t.ok(['search', 'platypus'])).toBe('Nothing found for "platypus".\n');
  });

  it('refuses bad queries and filters with a clear error, and keeps working after', async () => {
    await finished('zoo', [{ say: 'Search still works after bad queries.' }]);
    const cases: [string[], RegExp, number][] = [
      [
        ['search', 'works', 'AND'],
        /not a valid query.*AND, OR, NOT and parentheses need something on each side/,
        2,
      ],
      [['search', '"unclosed', 'phrase'], /unclosed quote/, 2],
      [
        ['search', 'works', '--since', 'yesterday'],
        /--since "yesterday" is not a time: give an age such as 30m, 12h, 7d/,
        2,
      ],
      [['search', 'works', '--kind', 'gossip'], /"kind" must be among message, reasoning/, 2],
      [['search', 'works', '--project', 'nope'], /No project "nope"/, 2],
      [['search', 'works', '--session', 'ghost'], /No session or imported session "ghost"/, 3],
      [['search', 'works', '--limit', 'many'], /--limit must be a whole number/, 2],
    ];
    for (const [args, message, code] of cases) {
      const run = await t.run(args, { cwd: repo });
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.stderr).toMatch(message);
    }
    // Words that look like FTS5 syntax are taken literally.
    expect((await t.json<SearchResult>(['search', 'works(', 'after:'])).hits).toHaveLength(1);
  });
});

describe('baton transcript', () => {
  it('redacts planted secrets in every export: plain, Markdown, JSON, the repository copy, search snippets and the handoff pack', async () => {
    const s = await finished('leaky', [
      { say: `Using key ${SECRETS.anthropic} for the test.` },
      { write: { path: '.env', content: `DATABASE_PASSWORD=${SECRETS.env}\n` } },
      { run: ['sh', '-c', `echo token ${SECRETS.github}`] },
      { say: 'Decided: keep the credentials out of git.' },
    ]);
    const outputs = [
      await t.ok(['transcript', 'leaky']),
      await t.ok(['transcript', 'leaky', '--md']),
      await t.ok(['transcript', 'leaky', '--json']),
      await t.ok(['search', 'token', '--json']),
      await t.ok(['handoff', 'leaky', '--to', 'scripted', '--preview', 'rotate the keys']),
    ];
    await t.ok(['transcript', 'leaky', '--to-repo']);
    const file = join(repo, '.baton', 'transcripts', 'leaky.md');
    outputs.push(readFileSync(file, 'utf8'));
    for (const out of outputs) {
      for (const secret of Object.values(SECRETS)) expect(out).not.toContain(secret);
      expect(out).toContain('[REDACTED:');
    }
    const md = outputs[1]!;
    expect(md).toContain('# leaky');
    expect(md).toContain('### Tool: Write (ok)');
    // The event log itself is the unredacted record: only exports are cleaned.
    expect(readFileSync(join(t.home, 'sessions', s.id, 'events.jsonl'), 'utf8')).toContain(SECRETS.anthropic);
  });

  it('says clearly when a session does not exist', async () => {
    const run = await t.run(['transcript', 'ghost']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/No session or imported session "ghost"/);
  });
});

describe('baton handoff', () => {
  it('starts a session of another agent with the pack in its instructions, linked both ways', async () => {
    await finished(
      'designer',
      [
        { think: 'The cache must be keyed by tenant, not by user.' },
        { write: { path: 'model.ts', content: 'export interface Cache { tenant: string }\n' } },
        { run: ['sh', '-c', 'exit 3'] },
        { say: 'Decided: keep the old onChange signature. Should the cache expire hourly?' },
      ],
      'needs_input',
    );
    const view = await t.json<HandoffView>(
      [
        'handoff',
        'designer',
        '--to',
        'scripted',
        '--name',
        'migrator',
        '--budget',
        '2k',
        'write the cache migration for tenants',
      ],
      { cwd: repo },
    );
    expect(view.session?.name).toBe('migrator');
    expect(view.pack.tokens).toBeLessThanOrEqual(2000);
    const instructions = readFileSync(join(t.home, 'sessions', view.session!.id, 'instructions.md'), 'utf8');
    expect(instructions).toBe(view.pack.text);
    for (const part of [
      '## Your task',
      'write the cache migration for tenants',
      'keep the old onChange signature',
      'Should the cache expire hourly?',
      '`model.ts`',
      'keyed by tenant',
      'failed',
    ]) {
      expect(instructions).toContain(part);
    }
    const into = await t.client(repo).call('GET /api/handoffs/:ref', { params: { ref: 'migrator' } });
    const out = await t.client(repo).call('GET /api/handoffs/:ref', { params: { ref: 'designer' } });
    expect(into.from).toEqual([
      expect.objectContaining({ from: 'designer', to: 'migrator', agent: 'scripted' }),
    ]);
    expect(out.to).toEqual([expect.objectContaining({ from: 'designer', to: 'migrator' })]);
    expect(await t.ok(['transcript', 'migrator'])).toMatch(
      /^migrator \(scripted\)\nHanded off from designer \(\d+-token pack\): write the cache migration for tenants\n/,
    );
    expect(await t.ok(['transcript', 'designer'])).toContain(
      'Handed off to migrator (scripted): write the cache migration for tenants\n',
    );
    expect(await t.ok(['events'])).toMatch(
      /handoff\.created +designer \(scripted\) handed off to migrator \(scripted\)/,
    );
  });

  it("keeps the task's recorded decisions (from .baton/decisions/) in the pack of a session started from the task", async () => {
    await t.ok(['task', 'add', 'rework the cache'], { cwd: repo });
    await t.ok(['decide', '1', 'key the cache by tenant: users move between tenants (PELICAN-7)'], {
      cwd: repo,
    });
    await t.ok(
      [
        'task',
        'start',
        '1',
        '--name',
        'cacher',
        '--agent',
        'scripted',
        '--script',
        t.script([{ say: 'Started on the cache.' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('cacher', 'ready_for_review');
    // The task filter: the decision, and what the task's session was asked (its prompt, decision 232) and said.
    const byTask = await t.json<SearchResult>(['search', 'cache', '--task', '1'], { cwd: repo });
    expect(byTask.hits.map((h) => h.source).sort()).toEqual(['decision', 'event', 'event']);
    expect((await t.json<SearchResult>(['search', 'cache', '--task', '2'], { cwd: repo })).hits).toEqual([]);
    const view = await t.json<HandoffView>(
      ['handoff', 'cacher', '--to', 'scripted', '--preview', 'write the migration'],
      { cwd: repo },
    );
    expect(view.session).toBeNull();
    expect(view.pack.text).toContain('key the cache by tenant: users move between tenants (PELICAN-7)');
  });

  it('refuses a session with no transcript yet, a bad budget, a missing task and an unknown agent, starting nothing', async () => {
    const waiting = new (t.constructor as typeof TestBaton)({ BATON_MAX_CONCURRENT: '1' });
    try {
      const r = waiting.repo();
      await waiting.ok(
        ['dispatch', 'hold the slot', '--name', 'busy', '--script', waiting.script([{ sleep: 60_000 }])],
        { cwd: r },
      );
      await waiting.ok(
        ['dispatch', 'wait my turn', '--name', 'queued', '--script', waiting.script([{ say: 'hi' }])],
        { cwd: r },
      );
      const run = await waiting.run(['handoff', 'queued', '--to', 'scripted', 'carry on'], { cwd: r });
      expect(run.stderr).toMatch(/Session queued has no transcript yet/);
      expect(run.code).toBe(4);
    } finally {
      waiting.cleanup();
    }
    await finished('src', [{ say: 'Some work.' }]);
    const cases: [string[], RegExp][] = [
      [
        ['handoff', 'src', '--to', 'scripted', '--budget', 'lots', 'x'],
        /--budget must be a token count from 200 to 200k/,
      ],
      [['handoff', 'src', '--to', 'scripted', '--budget', '50', 'x'], /--budget must be a token count/],
      [['handoff', 'src', '--to', 'aider', 'x'], /Unknown agent "aider": Baton's agents are/],
      [['handoff', 'src', 'x'], /required option '--to <agent>' not specified/],
      [['handoff', 'ghost', '--to', 'scripted', 'x'], /No session or imported session "ghost"/],
    ];
    for (const [args, message] of cases) {
      const run = await t.run(args, { cwd: repo });
      expect(run.code, args.join(' ')).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
    const sessions = await t.json<SessionView[]>(['ls']);
    expect(sessions.map((s) => s.name)).toEqual(['src']);
    expect(existsSync(join(repo, '.baton', 'transcripts'))).toBe(false);
  });
});

describe('baton import', () => {
  it('reads the folders CLAUDE_CONFIG_DIR and CODEX_HOME name, and says what it found', async () => {
    const claudeDir = join(t.root, 'claude-config');
    const projects = join(claudeDir, 'projects', '-work-app');
    mkdirSync(projects, { recursive: true });
    const id = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    const line = (type: string, message: unknown) =>
      JSON.stringify({
        type,
        sessionId: id,
        cwd: '/home/user/app',
        timestamp: '2026-01-01T00:00:00Z',
        message,
      });
    writeFileSync(
      join(projects, `${id}.jsonl`),
      [
        line('user', { role: 'user', content: 'find the flaky pelican test' }),
        '{"type":"mystery"}',
        'not json',
        line('assistant', {
          role: 'assistant',
          content: [{ type: 'text', text: 'The pelican test races the clock.' }],
        }),
      ].join('\n') + '\n',
    );
    const env = { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: join(t.root, 'no-codex-here') };
    const run = await t.run(['import', '--claude', '--codex'], { env });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      'claude: 1 files (1 with new lines), 2 new events in 1 sessions; 1 lines of other kinds skipped, 1 malformed.\n' +
        'codex: 0 files (0 with new lines), 0 new events in 0 sessions; 0 lines of other kinds skipped, 0 malformed.\n',
    );
    expect(
      (await t.json<SearchResult>(['search', 'pelican', '--session', `claude-${id}`])).hits,
    ).toHaveLength(2);
    expect(await t.ok(['transcript', 'aaaaaaaa-bbbb'])).toContain('The pelican test races the clock.');
    const none = await t.run(['import']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Say what to import: --claude, --codex, --gemini, --opencode or several/);
  });

  it("reads Gemini CLI's own session files under HOME, and transcripts them", async () => {
    // A file the real Gemini CLI 0.61 wrote through Baton's adapter (decision 284).
    const home = join(t.root, 'gemini-user');
    cpSync(
      join(import.meta.dirname, '..', '..', 'src', 'context', 'import', 'fixtures', 'gemini-0.61', 'tmp'),
      join(home, '.gemini', 'tmp'),
      { recursive: true },
    );
    writeFileSync(join(home, '.gemini', 'tmp', 'repo', '.project_root'), join(t.root, 'elsewhere'));
    const run = await t.run(['import', '--gemini'], { env: { HOME: home } });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      'gemini: 1 files (1 with new lines), 4 new events in 1 sessions; 10 lines of other kinds skipped, 0 malformed.\n',
    );
    const transcript = await t.ok(['transcript', 'gemini-c22b362b-7610-4681-a2d8-59d93224fba5']);
    expect(transcript).toContain('write notes');
    expect(transcript).toContain('Wrote notes.');
  });

  it("reads opencode's database where XDG_DATA_HOME says, and refuses a file that is not one, losing nothing", async () => {
    const data = join(t.root, 'opencode-user', 'share');
    const empty = await t.run(['import', '--opencode'], { env: { XDG_DATA_HOME: data } });
    expect(empty.stderr).toBe('');
    expect(empty.stdout).toBe(
      'opencode: 0 sessions in its database (0 with new messages), 0 new events in 0 sessions; 0 lines of other kinds skipped, 0 malformed.\n',
    );
    mkdirSync(join(data, 'opencode'), { recursive: true });
    const notADb = 'these are my notes, not a database\n'.repeat(100);
    writeFileSync(join(data, 'opencode', 'opencode.db'), notADb);
    const bad = await t.run(['import', '--opencode'], { env: { XDG_DATA_HOME: data } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `${join(data, 'opencode', 'opencode.db')} cannot be read as opencode's database`,
    );
    expect(readFileSync(join(data, 'opencode', 'opencode.db'), 'utf8')).toBe(notADb);
  });
});
