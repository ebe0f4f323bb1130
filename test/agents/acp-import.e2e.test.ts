/**
 * opencode's own sessions into Baton, from the SQLite store the real opencode binary writes
 * (decision 376): a session the user ran with `opencode run` outside Baton is imported — its
 * prompt, thought, tool calls and answer, searchable and handed off from — and the session Baton
 * ran through its ACP adapter, in the same store, is passed over. Against the scripted model
 * server; opencode's data folder is the test's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { HandoffView, ImportResult, SearchResult, TranscriptExport } from '../../src/api/context.js';
import {
  installedOpencodePath,
  opencodeEnv,
  startModelServer,
  type ModelServer,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 180_000;
vi.setConfig({ testTimeout: 3 * WAIT });

const BATONS = 'opencode: say hello through baton';
const MINE = 'opencode: design the tenant cache on my own';

let server: ModelServer;
let home: string;
let t: TestBaton;

beforeAll(async () => {
  server = await startModelServer([
    { prompt: BATONS, steps: [{ text: 'Hello from a session Baton ran.' }] },
    {
      prompt: MINE,
      steps: [
        {
          thinking: 'Users share tenants, so key the cache by tenant.',
          tools: [
            {
              name: 'write',
              input: { filePath: 'cache.ts', content: 'export type Key = { tenantId: string };\n' },
            },
          ],
        },
        {
          tools: [
            { name: 'bash', input: { command: 'echo tenant-cache-checked-618', description: 'check' } },
          ],
        },
        { text: 'Decided: the cache is keyed by tenant id, never by user id.' },
      ],
    },
  ]);
  home = mkdtempSync(join(tmpdir(), 'baton-acp-import-'));
  t = new TestBaton({
    ...opencodeEnv({ url: server.url, home }),
    BATON_OPENCODE_PATH: installedOpencodePath(),
  });
});
afterAll(async () => {
  t.cleanup();
  rmSync(home, { recursive: true, force: true });
  await server.close();
});

/** The user's own `opencode run`, outside Baton (its exit code, and its output for a failure's message). */
function opencodeRun(cwd: string, prompt: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(installedOpencodePath(), ['run', prompt], {
      cwd,
      env: t.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it('imports a session the user ran with opencode itself, and passes over the one Baton ran', async () => {
  const repo = t.repo();
  await t.ok(['dispatch', BATONS, '--agent', 'opencode', '--name', 'greeter'], { cwd: repo });
  await t.waitForState('greeter', 'ready_for_review', WAIT);
  const own = await opencodeRun(repo, MINE);
  expect(own.code, own.output).toBe(0);

  const [report] = await t.json<ImportResult['reports']>(['import', '--opencode']);
  expect(report).toMatchObject({
    vendor: 'opencode',
    root: join(home, '.local', 'share', 'opencode', 'opencode.db'),
    files: 2,
    sessions: 1,
    batonSessions: 1,
    malformed: 0,
    unfinished: 0,
  });
  // The prompt, the thought, two tool calls (started and finished) and the answer.
  expect(report!.events).toBe(7);
  // opencode's step markers and patches hold nothing for a transcript: counted.
  expect(report!.skipped['part/step-start']).toBeGreaterThan(0);
  const again = await t.json<ImportResult['reports']>(['import', '--opencode']);
  expect(again[0]).toMatchObject({ events: 0, batonSessions: 1 });
  expect(await t.ok(['import', '--opencode'])).toContain(
    'opencode: 2 sessions in its database (0 with new messages), 0 new events in 0 sessions',
  );

  // Searchable: the command's output is found in opencode's own session, as opencode's.
  const hits = await t.json<SearchResult>(['search', 'tenant-cache-checked-618', '--kind', 'tool_output']);
  expect(hits.hits).toHaveLength(1);
  expect(hits.hits[0]).toMatchObject({ source: 'imported', agent: 'opencode' });
  const imported = hits.hits[0]!.sessionId!;
  expect(imported).toMatch(/^opencode-ses_/);
  // Baton's own session is not there twice.
  const hello = await t.json<SearchResult>(['search', 'Hello from a session Baton ran']);
  expect(hello.hits.map((h) => h.source)).toEqual(['event']);

  const transcript = await t.json<TranscriptExport['transcript']>(['transcript', imported, '--json']);
  expect(transcript).toMatchObject({ origin: 'opencode', agent: 'opencode', cwd: repo });
  expect(transcript.entries.map((e) => e.role)).toEqual(['user', 'reasoning', 'tool', 'tool', 'assistant']);
  expect(transcript.entries.find((e) => e.tool === 'write')?.files).toEqual(['cache.ts']);

  // And handed off from: its decision and file reach the pack.
  const pack = await t.json<HandoffView>(
    ['handoff', imported, '--to', 'opencode', '--preview', 'add an expiry to the tenant cache'],
    { cwd: repo },
  );
  expect(pack.pack.text).toContain('(opencode, imported from its own transcript)');
  expect(pack.pack.text).toContain('the cache is keyed by tenant id, never by user id');
  expect(pack.pack.text).toMatch(
    /`cache\.ts` \(write; Key\) #\d+ — Users share tenants, so key the cache by tenant\./,
  );
  server.assertClean();
});
