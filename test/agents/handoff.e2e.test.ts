/**
 * Context across vendors with the real `claude` and `codex` binaries against the scripted model
 * server: a Claude session's decisions and reasoning reach a Codex session through `baton
 * handoff` (read off the instructions the model server received), and come back to Claude in a
 * chain of three; then the transcript files the real CLIs wrote are imported, searched and
 * handed off from. Nothing leaves 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { HandoffView, ImportResult, SearchResult } from '../../src/api/context.js';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 60_000;
vi.setConfig({ testTimeout: 6 * WAIT });

const DESIGN = 'claude: design the tenant cache';
const MIGRATE = 'codex: write the migration for the tenant cache';
const REVIEW = 'claude: review the tenant cache migration';

let server: ModelServer;
let agentHome: string;
let t: TestBaton;

beforeAll(async () => {
  server = await startModelServer([
    {
      prompt: DESIGN,
      steps: [
        {
          thinking: 'Users share tenants, so a per-user cache would duplicate entries: key by tenant.',
          tools: [
            {
              name: 'Write',
              input: { file_path: 'cache.ts', content: 'export type Key = { tenantId: string };\n' },
            },
          ],
        },
        {
          tools: [
            { name: 'Bash', input: { command: 'echo cache-layout-verified-314', description: 'check' } },
          ],
        },
        { text: 'Decided: the cache is keyed by tenant id, never by user id. Should entries expire hourly?' },
      ],
    },
    {
      prompt: MIGRATE,
      steps: [
        {
          thinking: 'The column must exist before the backfill reads it.',
          text: 'Decided: the migration adds tenant_id before the backfill runs. Migration planned.',
        },
      ],
    },
    { prompt: REVIEW, steps: [{ text: 'Reviewed: the order is right.' }] },
  ]);
  agentHome = mkdtempSync(join(tmpdir(), 'baton-handoff-home-'));
  t = new TestBaton(realAgentsEnv(server.url, agentHome));
});

afterAll(async () => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  await server.close();
});

/** Everything the model server was sent for a scenario: system prompts, developer instructions, messages. */
const sentFor = (prompt: string): string =>
  server
    .requestsFor(prompt)
    .map((r) => r.text)
    .join('\n');

it('carries a Claude session’s decisions and reasoning to Codex, and on to Claude again, then imports what the real CLIs wrote', async () => {
  const repo = t.repo();
  await t.ok(
    ['dispatch', DESIGN, '--agent', 'claude', '--name', 'design', '--permission-mode', 'acceptEdits'],
    { cwd: repo },
  );
  await t.waitForState('design', 'needs_input', WAIT);

  // Claude → Codex
  const toCodex = await t.json<HandoffView>(
    ['handoff', 'design', '--to', 'codex', '--name', 'migrate', MIGRATE],
    { cwd: repo },
  );
  expect(toCodex.pack.tokens).toBeLessThanOrEqual(8000);
  await t.waitForState('migrate', 'ready_for_review', WAIT);
  const codexSaw = sentFor(MIGRATE);
  expect(codexSaw).toContain('Handoff from session design (claude)');
  expect(codexSaw).toContain('the cache is keyed by tenant id, never by user id');
  expect(codexSaw).toContain('Users share tenants, so a per-user cache would duplicate entries');
  expect(codexSaw).toContain('`cache.ts` (Write)');
  expect(codexSaw).toContain('Should entries expire hourly?');

  // Codex → Claude: the third session gets Codex's decision, and Claude's first one carried along.
  await t.ok(['handoff', 'migrate', '--to', 'claude', '--name', 'review', REVIEW], { cwd: repo });
  await t.waitForState('review', 'ready_for_review', WAIT);
  const claudeSaw = sentFor(REVIEW);
  expect(claudeSaw).toContain('Handoff from session migrate (codex)');
  expect(claudeSaw).toContain('the migration adds tenant_id before the backfill runs');
  expect(claudeSaw).toContain('The column must exist before the backfill reads it.');
  expect(claudeSaw).toContain('the cache is keyed by tenant id, never by user id');
  // The scripted model never saw a pack it was not handed.
  expect(sentFor(DESIGN)).not.toContain('Handoff from session');

  const links = await t.client(repo).call('GET /api/handoffs/:ref', { params: { ref: 'migrate' } });
  expect(links.from.map((l) => l.from)).toEqual(['design']);
  expect(links.to.map((l) => l.to)).toEqual(['review']);

  // The transcript files the real CLIs wrote (HOME and CODEX_HOME are the test's) are Baton's own
  // sessions: import leaves them (decision 232). The same files as the user's own — another id,
  // another folder, as if run outside Baton — are imported.
  const worktrees = (await t.json<{ worktree: string }[]>(['ls', '--all', '--json'])).map((s) => s.worktree);
  for (const root of [join(agentHome, '.claude', 'projects'), join(String(t.env.CODEX_HOME), 'sessions')])
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      const id = /([0-9a-f]{8}-[0-9a-f-]{27,})\.jsonl$/.exec(file)?.[1];
      if (id === undefined) continue;
      const fresh = randomUUID();
      let text = readFileSync(join(root, file), 'utf8').replaceAll(id, fresh);
      for (const worktree of worktrees) text = text.replaceAll(worktree, '/home/dev/elsewhere');
      const copy = join(
        root,
        root.endsWith('projects') ? '-home-dev-elsewhere' : '',
        basename(file).replace(id, fresh),
      );
      mkdirSync(dirname(copy), { recursive: true });
      writeFileSync(copy, text);
    }
  const first = await t.json<ImportResult['reports']>(['import', '--claude', '--codex']);
  const claude = first.find((r) => r.vendor === 'claude')!;
  const codex = first.find((r) => r.vendor === 'codex')!;
  expect(claude.batonSessions).toBeGreaterThanOrEqual(2);
  expect(codex.batonSessions).toBe(1);
  expect(claude.sessions).toBeGreaterThanOrEqual(2);
  expect(codex.sessions).toBe(1);
  expect(claude.events).toBeGreaterThan(0);
  expect(codex.events).toBeGreaterThan(0);
  expect(claude.malformed + codex.malformed).toBe(0);
  // Line types that hold no conversation are counted, not fatal.
  expect(Object.keys(claude.skipped).length).toBeGreaterThan(0);
  // Again: nothing new, nothing doubled.
  const again = await t.json<ImportResult['reports']>(['import', '--claude', '--codex']);
  expect(again.map((r) => r.events)).toEqual([0, 0]);

  // Searchable: the Bash output is found in Baton's session and in Claude's own transcript.
  const hits = await t.json<SearchResult>(['search', 'cache-layout-verified-314', '--kind', 'tool_output']);
  expect(hits.hits.map((h) => h.source).sort()).toEqual(['event', 'imported']);
  const imported = hits.hits.find((h) => h.source === 'imported')!;
  expect(imported.agent).toBe('claude');

  // And handed off from: the imported Claude session's decision reaches the pack.
  const fromImported = await t.json<HandoffView>(
    ['handoff', imported.sessionId!, '--to', 'codex', '--preview', 'add an expiry to the tenant cache'],
    { cwd: repo },
  );
  expect(fromImported.pack.text).toContain('the cache is keyed by tenant id, never by user id');
  expect(fromImported.pack.text).toContain('(claude, imported from its own transcript)');
  const codexImported = await t.json<SearchResult>(['search', 'tenant_id', '--agent', 'codex']);
  expect(codexImported.hits.some((h) => h.source === 'imported')).toBe(true);
  server.assertClean();
});
