/**
 * A routine's run is an ordinary session of a real agent: the digest routine with the real
 * `claude` (against the scripted model server) gets yesterday's sessions in its prompt and the
 * workspace brief in its system prompt, and its report lands as the day's note. "Yesterday" is
 * made real with libfaketime: a scripted session runs with the wall clock a day back.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';
import { FakeClock } from '../support/fake-clock.js';

const WAIT = 45_000;
vi.setConfig({ testTimeout: 3 * WAIT });
const DIGEST = '# Digest\n\nwatcher: kept the old onChange signature (three callers outside src/ use it).';

let server: ModelServer;
let agentHome: string;
let t: TestBaton;
let clock: FakeClock;

beforeAll(async () => {
  server = await startModelServer([{ prompt: 'Write the digest of', steps: [{ text: DIGEST }] }]);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  t.cleanup();
  clock.stop();
  rmSync(agentHome, { recursive: true, force: true });
  server.assertClean();
});

describe('the digest routine with the real claude', () => {
  it("gets yesterday's sessions and the workspace brief, and its report becomes the day's note", async () => {
    agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
    t = new TestBaton(realAgentsEnv(server.url, agentHome));
    clock = await FakeClock.start(t.root);
    Object.assign(t.env, clock.env());
    const repo = t.repo('app');
    writeFileSync(
      join(agentHome, '.claude.json'),
      JSON.stringify({ projects: { [repo]: { hasTrustDialogAccepted: true } } }),
    );

    clock.set(-86_400);
    await t.ok(
      [
        'dispatch',
        'fix the flaky watcher test',
        '--name',
        'watcher',
        '--script',
        t.script([{ say: 'Kept the old onChange signature.' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('watcher', 'ready_for_review');
    await t.ok(['daemon', 'stop']);
    // Back to the real clock, and off libfaketime: the agent's own binary runs as the user's would.
    for (const name of Object.keys(clock.env())) delete t.env[name];

    await t.ok(
      ['routine', 'add', 'digest', '--cron', '0 8 * * *', '--agent', 'claude', '--template', 'digest'],
      { cwd: repo },
    );
    await t.ok(['routine', 'run', 'digest', '--now'], { cwd: repo });
    const done = await finished(t);
    expect(done.data, done.data.summary).toMatchObject({ outcome: 'findings' });
    const day = new Intl.DateTimeFormat('en-CA', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date(Date.now() - 86_400_000));
    expect(readFileSync(join(repo, '.baton', 'notes', `digest-${day}.md`), 'utf8')).toBe(`${DIGEST}\n`);

    const request = server.requestsFor('Write the digest of')[0]!;
    // The prompt: yesterday's session and its last word.
    expect(request.prompt).toContain('fix the flaky watcher test');
    expect(request.prompt).toContain('Kept the old onChange signature.');
    // The system prompt: Baton's own instructions, then the workspace brief.
    expect(request.text).toContain('one of several coding agents Baton runs in parallel');
    expect(request.text).toContain('You are running the routine \\"digest\\"');
    expect(request.text).toContain('Sessions of the last 24 hours');
  });
});

async function finished(baton: TestBaton): Promise<Extract<WorkspaceEvent, { type: 'routine.finished' }>> {
  const controller = new AbortController();
  let found: WorkspaceEvent | undefined;
  const timer = setTimeout(() => controller.abort(), WAIT);
  try {
    await baton.client().followWorkspace(
      0,
      (event) => {
        if (event.type === 'routine.finished') {
          found = event;
          controller.abort();
        }
      },
      controller.signal,
    );
  } finally {
    clearTimeout(timer);
  }
  if (found === undefined) throw new Error('the routine did not finish in time');
  return found as Extract<WorkspaceEvent, { type: 'routine.finished' }>;
}
