/**
 * Context across vendors through an Agent Client Protocol agent, with the real binaries against
 * the scripted model server: a real `claude` session's decisions and reasoning reach a real
 * Gemini CLI session through `baton handoff` (Gemini CLI continues from them), and that session's
 * own decisions, reasoning and files reach a real `codex` session through a second handoff, with
 * Claude's carried along. Each step is read off what the model server received. Nothing leaves
 * 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { HandoffView } from '../../src/api/context.js';
import {
  geminiEnv,
  installedGeminiPath,
  realAgentsEnv,
  startModelServer,
  type ModelServer,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 180_000;
vi.setConfig({ testTimeout: 4 * WAIT });

const DESIGN = 'claude: design the tenant cache';
const MIGRATE = 'gemini: write the migration for the tenant cache';
const BACKFILL = 'codex: write the backfill for the tenant cache';

let server: ModelServer;
let agentHome: string;
let t: TestBaton;

beforeAll(async () => {
  // A pack given to Gemini CLI travels in its first prompt (ACP has no system prompt), so that
  // prompt holds the earlier sessions' tasks too: the scenarios are listed latest first, and the
  // server picks the first whose prompt the conversation's latest prompt contains.
  server = await startModelServer([
    { prompt: BACKFILL, steps: [{ text: 'Backfill written, in batches of tenants.' }] },
    {
      prompt: MIGRATE,
      steps: [
        {
          thinking: 'The column must exist before the backfill reads it.',
          tools: [
            {
              name: 'write_file',
              input: {
                file_path: 'migration.sql',
                content: 'ALTER TABLE cache ADD COLUMN tenant_id TEXT;\n',
              },
            },
          ],
        },
        { text: 'Decided: the migration adds tenant_id before the backfill runs. Migration written.' },
      ],
    },
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
        { text: 'Decided: the cache is keyed by tenant id, never by user id. Should entries expire hourly?' },
      ],
    },
  ]);
  agentHome = mkdtempSync(join(tmpdir(), 'baton-acp-handoff-'));
  t = new TestBaton({
    ...realAgentsEnv(server.url, agentHome),
    ...geminiEnv({ url: server.url, home: agentHome }),
    BATON_GEMINI_PATH: installedGeminiPath(),
  });
});

afterAll(async () => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  await server.close();
});

/** Everything the model server was sent for a scenario. */
const sentFor = (prompt: string): string =>
  server
    .requestsFor(prompt)
    .map((r) => r.text)
    .join('\n');

it('carries a Claude session’s decisions to Gemini CLI, which continues from them, and both sessions’ on to Codex', async () => {
  const repo = t.repo();
  await t.ok(
    ['dispatch', DESIGN, '--agent', 'claude', '--name', 'design', '--permission-mode', 'acceptEdits'],
    { cwd: repo },
  );
  await t.waitForState('design', 'needs_input', WAIT);

  // Claude → Gemini CLI: the pack is in what Gemini's model was sent, and Gemini works on.
  const toGemini = await t.json<HandoffView>(
    ['handoff', 'design', '--to', 'gemini', '--name', 'migrate', MIGRATE],
    { cwd: repo },
  );
  expect(toGemini.pack.text).toContain('the cache is keyed by tenant id, never by user id');
  const asking = await t.waitForState('migrate', 'needs_input', WAIT);
  expect(asking.agent).toBe('gemini');
  const geminiSaw = sentFor(MIGRATE);
  expect(geminiSaw).toContain('Handoff from session design (claude)');
  expect(geminiSaw).toContain('the cache is keyed by tenant id, never by user id');
  expect(geminiSaw).toContain('Users share tenants, so a per-user cache would duplicate entries');
  expect(geminiSaw).toContain('`cache.ts` (Write)');
  expect(geminiSaw).toContain('Should entries expire hourly?');
  await t.ok(['approve', 'migrate']);
  const migrated = await t.waitForState('migrate', 'ready_for_review', WAIT);
  expect(readFileSync(join(migrated.worktree, 'migration.sql'), 'utf8')).toContain('tenant_id');

  // Gemini CLI → Codex: Gemini's decision, reasoning and file, and Claude's decision carried along.
  const toCodex = await t.json<HandoffView>(
    ['handoff', 'migrate', '--to', 'codex', '--name', 'backfill', BACKFILL],
    { cwd: repo },
  );
  expect(toCodex.pack.tokens).toBeLessThanOrEqual(8000);
  await t.waitForState('backfill', 'ready_for_review', WAIT);
  const codexSaw = sentFor(BACKFILL);
  expect(codexSaw).toContain('Handoff from session migrate (gemini)');
  expect(codexSaw).toContain('the migration adds tenant_id before the backfill runs');
  expect(codexSaw).toContain('The column must exist before the backfill reads it.');
  // The file Gemini wrote, with its reason: the thought before it (no bare `****` subject line).
  expect(codexSaw).toMatch(
    /`migration\.sql` \(edit\) #\d+ — The column must exist before the backfill reads it\./,
  );
  expect(toCodex.pack.text).not.toContain('****');
  expect(codexSaw).toContain('the cache is keyed by tenant id, never by user id');
  // No model saw a pack it was not handed.
  expect(sentFor(DESIGN)).not.toContain('Handoff from session');
  expect(geminiSaw).not.toContain('Handoff from session migrate');

  const links = await t.client(repo).call('GET /api/handoffs/:ref', { params: { ref: 'migrate' } });
  expect(links.from.map((l) => l.from)).toEqual(['design']);
  expect(links.to.map((l) => l.to)).toEqual(['backfill']);
  server.assertClean();
});
