/**
 * The other two built-in ACP agents, real binaries from the npm registry, each through the whole
 * product for one turn against the scripted model server's Chat Completions endpoint: Qwen Code
 * (`qwen --acp`, its OpenAI-compatible auth) and GitHub Copilot CLI (`copilot --acp --stdio`, in
 * its bring-your-own-key mode, so no GitHub sign-in). Decision 377.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import {
  copilotEnv,
  installedCopilotPath,
  installedQwenPath,
  qwenEnv,
  startModelServer,
  type AgentEnvOptions,
  type ModelServer,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 180_000;
vi.setConfig({ testTimeout: 2 * WAIT });

interface Case {
  name: 'qwen' | 'copilot';
  env: (options: AgentEnvOptions) => NodeJS.ProcessEnv;
  executable: () => string;
  /** Whether the agent reports a turn's tokens over ACP (Copilot CLI does; Qwen Code 0.24 does not). */
  reportsUsage: boolean;
}

const CASES: Case[] = [
  { name: 'qwen', env: qwenEnv, executable: installedQwenPath, reportsUsage: false },
  { name: 'copilot', env: copilotEnv, executable: installedCopilotPath, reportsUsage: true },
];

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(
    CASES.map((c) => ({
      prompt: `${c.name}: say hello`,
      steps: [{ text: `Hello from ${c.name}.`, usage: { input: 300, output: 40 } }],
    })),
  );
});
afterAll(async () => {
  await server.close();
});

for (const agent of CASES)
  describe(`${agent.name} through baton`, () => {
    it('runs a turn to ready_for_review with the model’s answer in its transcript', async () => {
      const home = mkdtempSync(join(tmpdir(), `baton-acp-${agent.name}-`));
      const t = new TestBaton({
        ...agent.env({ url: server.url, home }),
        [`BATON_${agent.name.toUpperCase()}_PATH`]: agent.executable(),
      });
      try {
        mkdirSync(t.home, { recursive: true });
        const repo = t.repo();
        const prompt = `${agent.name}: say hello`;
        await t.ok(['dispatch', prompt, '--agent', agent.name, '--name', 'hello'], { cwd: repo });
        const done = await t.waitForState('hello', 'ready_for_review', WAIT);
        expect(done.agent).toBe(agent.name);
        expect(await t.ok(['transcript', 'hello'])).toContain(`Hello from ${agent.name}.`);
        // The model was sent the prompt, with Baton's instructions before it in the same turn.
        const [first] = server.requestsFor(prompt);
        expect(first?.text).toContain('baton_instructions');
        const ls = await t.json<SessionView[]>(['ls']);
        expect(ls.find((s) => s.name === 'hello')?.state).toBe('ready_for_review');
        expect(done.inputTokens).toBe(agent.reportsUsage ? 300 : 0);
        server.assertClean();
      } finally {
        t.cleanup();
        rmSync(home, { recursive: true, force: true });
      }
    });
  });
