/**
 * The skill of working in Baton (skills/baton/SKILL.md, decision 187) reaches the agent of every
 * session: the real `claude` (an appended system prompt) and the real `codex` (the thread's
 * developer instructions), dispatched by `baton` against the scripted model server.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 45_000;
vi.setConfig({ testTimeout: 3 * WAIT });

const SKILL = readFileSync(join(import.meta.dirname, '..', '..', 'skills', 'baton', 'SKILL.md'), 'utf8');

let server: ModelServer;
let agentHome: string | undefined;
let t: TestBaton | undefined;

beforeAll(async () => {
  server = await startModelServer(
    (['claude', 'codex'] as const).map((agent) => ({
      prompt: `${agent}: how do I work here`,
      steps: [{ text: 'Understood.' }],
    })),
  );
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  t?.cleanup();
  if (agentHome !== undefined) rmSync(agentHome, { recursive: true, force: true });
  server.assertClean();
});

describe('the skill of working in Baton', () => {
  it.each(['claude', 'codex'] as const)(
    'reaches a %s session with its tools and the rules it keeps',
    async (agent) => {
      agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
      t = new TestBaton(realAgentsEnv(server.url, agentHome));
      const repo = t.repo();
      await t.ok(['dispatch', `${agent}: how do I work here`, '--agent', agent, '--name', 'learner'], {
        cwd: repo,
      });
      await t.waitForState('learner', 'ready_for_review', WAIT);
      const request = server.requestsFor(`${agent}: how do I work here`)[0]!;
      // The skill's body as written (the request serializes it as JSON), without its front matter.
      expect(SKILL).toContain('# Working inside Baton');
      for (const line of [
        '# Working inside Baton',
        'call `ask_user` with one clear question',
        'Approvals are the user',
      ])
        expect(request.text).toContain(JSON.stringify(line).slice(1, -1));
      expect(request.text).not.toContain('description: How to work well as one of several');
    },
  );
});
