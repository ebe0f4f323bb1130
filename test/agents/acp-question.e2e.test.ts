/**
 * A question through the real opencode (an ACP agent), through the whole product: its model calls
 * Baton's MCP server's `ask_user` (offered in `session/new`), the session needs input with the
 * question in context (`baton ls`, the reason), and `baton reply` reaches the model as the tool's
 * result, continuing the same turn (decision 96).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import {
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
