/**
 * What real `claude` and `codex` sessions show of their cost and their failures, through the
 * whole product against the scripted model servers (decisions 154, 155): one figure for a
 * session's cost in `baton cost`, `ls`, `peek` and the API; and a start that fails says the
 * agent's own reason, not only "exited with code 1".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PeekView, SessionView } from '../../src/api/index.js';
import type { CostReport } from '../../src/api/watchdog.js';
import { formatUsd } from '../../src/events/format.js';
import {
  realAgentsEnv,
  startModelServer,
  type ModelServer,
  type Scenario,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 45_000;
vi.setConfig({ testTimeout: 4 * WAIT });

const scenarios: Scenario[] = [
  {
    prompt: 'codex: count the files',
    steps: [{ text: 'There are 3 files.', usage: { input: 4000, output: 100 } }],
  },
  {
    prompt: 'claude: count the files',
    steps: [{ text: 'There are 3 files.', usage: { input: 1000, output: 100 } }],
  },
  { prompt: 'claude: as root', steps: [{ text: 'unreachable' }] },
];

let server: ModelServer;
let agentHome: string;
let t: TestBaton;
let repo: string;

beforeAll(async () => {
  server = await startModelServer(scenarios);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
});

function setUp(): void {
  agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
  t = new TestBaton(realAgentsEnv(server.url, agentHome));
  repo = t.repo();
}

describe.each(['codex', 'claude'] as const)('%s: one cost in every view', (agent) => {
  it('baton cost, ls, peek and the API show the same dollars', async () => {
    setUp();
    await t.ok(['dispatch', `${agent}: count the files`, '--agent', agent, '--name', 'n'], { cwd: repo });
    const done = await t.waitForState('n', 'ready_for_review', WAIT);
    expect(done.inputTokens).toBeGreaterThan(0);
    const report = await t.json<CostReport>(['cost', '--json']);
    const row = report.rows.find((r) => r.key.endsWith('/n'));
    expect(row?.usd ?? 0).toBeGreaterThan(0);
    const usd = row!.usd;
    const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'n' } });
    expect(session.costUsd).toBeCloseTo(usd, 6);
    expect((await t.json<SessionView[]>(['ls'])).find((s) => s.name === 'n')?.costUsd).toBeCloseTo(usd, 6);
    expect((await t.json<PeekView>(['peek', 'n'])).session.costUsd).toBeCloseTo(usd, 6);
    const shown = formatUsd(usd);
    expect(await t.ok(['cost'])).toContain(shown);
    expect(await t.ok(['ls'])).toContain(shown);
    expect(await t.ok(['peek', 'n'])).toContain(shown);
  });
});

describe('claude failing at start', () => {
  it('says claude’s own reason in peek, logs and ls, not only its exit code', async () => {
    if (process.getuid?.() !== 0)
      throw new Error('this test needs root: claude refuses bypassPermissions as root');
    setUp();
    await t.ok(['ls']);
    await t.client(repo).call('POST /api/dangerous-mode/accept', { body: { cwd: repo } });
    await t.ok(
      [
        'dispatch',
        'claude: as root',
        '--agent',
        'claude',
        '--name',
        'root',
        '--permission-mode',
        'bypassPermissions',
      ],
      { cwd: repo },
    );
    const failed = await t.waitForState('root', 'failed', WAIT);
    const why = /cannot be used with root/;
    expect(JSON.stringify(failed.reason)).toMatch(why);
    expect(await t.ok(['peek', 'root'])).toMatch(
      new RegExp(`reason: +.*${why.source}.*\\(claude exited with code 1\\)`),
    );
    expect(await t.ok(['logs', 'root'])).toMatch(why);
    expect(await t.ok(['ls'])).toMatch(new RegExp(`root .*${why.source}`));
  });
});
