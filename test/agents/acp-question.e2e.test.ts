/**
 * A question through the real opencode (an ACP agent), through the whole product: its model calls
 * Baton's MCP server's `ask_user` (offered in `session/new`), the session needs input with the
 * question in context (`baton ls`, the reason), and `baton reply` reaches the model as the tool's
 * result, continuing the same turn (decision 96). And why the real Gemini CLI cannot ask the same
 * way (decision 375): what its model is offered, read off the model server.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import {
  geminiEnv,
  installedGeminiPath,
  installedOpencodePath,
  opencodeEnv,
  startModelServer,
  type ModelServer,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 180_000;
vi.setConfig({ testTimeout: 3 * WAIT });
const QUESTION = 'Keep the old onChange signature?';
const PROMPT = 'opencode: ask the user through baton';
const GEMINI_UNTRUSTED = 'gemini: what are you offered, untrusted';
const GEMINI_TRUSTED = 'gemini: what are you offered, trusted';

let server: ModelServer;
let home: string;
let t: TestBaton;

beforeAll(async () => {
  server = await startModelServer([
    {
      prompt: PROMPT,
      // opencode names an MCP server's tools `<server>_<tool>`.
      steps: [
        { tools: [{ name: 'baton_ask_user', input: { question: QUESTION } }] },
        { text: 'Keeping it, as you said.' },
      ],
    },
    { prompt: GEMINI_UNTRUSTED, steps: [{ text: 'Nothing of Baton’s.' }] },
    { prompt: GEMINI_TRUSTED, steps: [{ text: 'Baton’s tools, but no ask_user.' }] },
  ]);
  home = mkdtempSync(join(tmpdir(), 'baton-acp-question-'));
  t = new TestBaton({
    ...opencodeEnv({ url: server.url, home }),
    BATON_OPENCODE_PATH: installedOpencodePath(),
  });
  mkdirSync(t.home, { recursive: true });
});
afterAll(async () => {
  t.cleanup();
  rmSync(home, { recursive: true, force: true });
  await server.close();
});

it('opencode asks the user through Baton: needs input with the question, and the reply continues the turn', async () => {
  const repo = t.repo();
  await t.ok(['dispatch', PROMPT, '--agent', 'opencode', '--name', 'asker'], { cwd: repo });
  const waiting = await t.waitForState('asker', 'needs_input', WAIT);
  expect(waiting.reason).toEqual({ kind: 'question', text: QUESTION });
  const ls = await t.json<SessionView[]>(['ls']);
  expect(ls.find((s) => s.name === 'asker')?.reason).toEqual({ kind: 'question', text: QUESTION });
  await t.ok(['reply', 'asker', 'yes, keep it']);
  const done = await t.waitForState('asker', 'ready_for_review', WAIT);
  expect(done.reason).toBeNull();
  const [, second] = server.requestsFor(PROMPT);
  expect(second?.text).toContain('yes, keep it');
  const log = readFileSync(join(t.home, 'sessions', done.id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; text?: string });
  expect(log).toContainEqual(expect.objectContaining({ type: 'question.answered', text: 'yes, keep it' }));
  expect(log.filter((e) => e.type === 'turn.started')).toHaveLength(1);
  expect(await t.ok(['transcript', 'asker'])).toContain('Keeping it, as you said.');
});

/** The function names a Gemini request offered its model. */
function geminiTools(prompt: string): string[] {
  const [request] = server.requestsFor(prompt);
  const body = request?.body as { tools?: { functionDeclarations?: { name: string }[] }[] } | undefined;
  return (body?.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));
}

it('Gemini CLI, offered Baton’s MCP server, starts it in no folder Baton runs it in, and drops any tool named ask_user', async () => {
  const geminiHome = mkdtempSync(join(tmpdir(), 'baton-acp-question-gemini-'));
  const g = new TestBaton({
    ...geminiEnv({ url: server.url, home: geminiHome }),
    BATON_GEMINI_PATH: installedGeminiPath(),
  });
  try {
    mkdirSync(g.home, { recursive: true });
    // The user's own entry that trusts the workspace, to tell Gemini CLI's two refusals apart.
    writeFileSync(
      join(g.home, 'config.json'),
      JSON.stringify({
        agents: {
          'trusting-gemini': {
            command: installedGeminiPath(),
            args: ['--acp'],
            env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' },
          },
        },
      }),
    );
    const repo = g.repo();
    await g.ok(['dispatch', GEMINI_UNTRUSTED, '--agent', 'gemini', '--name', 'untrusted'], { cwd: repo });
    await g.ok(['dispatch', GEMINI_TRUSTED, '--agent', 'trusting-gemini', '--name', 'trusted'], {
      cwd: repo,
    });
    await g.waitForState('untrusted', 'ready_for_review', WAIT);
    await g.waitForState('trusted', 'ready_for_review', WAIT);

    // Baton's entry (the workspace untrusted, decision 283): no MCP server starts, Baton's included,
    // though `session/new` offered it.
    const untrusted = geminiTools(GEMINI_UNTRUSTED);
    expect(untrusted).toContain('run_shell_command');
    expect(untrusted.filter((name) => name.startsWith('mcp_'))).toEqual([]);
    // Trusted, Baton's server starts, but Gemini CLI in ACP mode excludes every tool called
    // ask_user, its own and any MCP server's.
    const trusted = geminiTools(GEMINI_TRUSTED);
    expect(trusted).toContain('mcp_baton_record_decision');
    expect(trusted.filter((name) => name.endsWith('ask_user'))).toEqual([]);
  } finally {
    g.cleanup();
    rmSync(geminiHome, { recursive: true, force: true });
  }
});
