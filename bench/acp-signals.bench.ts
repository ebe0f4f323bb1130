/**
 * Figures for the ACP agents (decision 242): from the protocol's signal — the adapter's event,
 * stamped when `session/request_permission` or `session/prompt`'s answer arrived — to the state in
 * the session's log, and to a client (what `baton ls` reads) seeing it, with the real Gemini CLI
 * and the real opencode dispatched through the whole product against the scripted model server.
 * The goal is 250 ms to the client; the figures are printed, as for Claude Code and Codex.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionView } from '../src/api/index.js';
import {
  geminiEnv,
  installedGeminiPath,
  installedOpencodePath,
  opencodeEnv,
  startModelServer,
  type ModelServer,
  type Step,
} from '../test/support/model-server/index.js';
import { TestBaton } from '../test/support/baton.js';

const WAIT = 180_000;
const GOAL_MS = 250;
let server: ModelServer;
const lines: string[] = [];

const AGENTS: { name: string; env: (url: string, home: string) => NodeJS.ProcessEnv; run: Step }[] = [
  {
    name: 'gemini',
    env: (url: string, home: string) => ({
      ...geminiEnv({ url, home }),
      BATON_GEMINI_PATH: installedGeminiPath(),
    }),
    run: {
      tools: [{ name: 'run_shell_command', input: { command: 'echo yes > ok.txt', description: 'x' } }],
    },
  },
  {
    name: 'opencode',
    env: (url: string, home: string) => ({
      ...opencodeEnv({ url, home }),
      BATON_OPENCODE_PATH: installedOpencodePath(),
    }),
    run: { tools: [{ name: 'bash', input: { command: 'echo yes > ok.txt', description: 'x' } }] },
  },
];

beforeAll(async () => {
  server = await startModelServer(
    AGENTS.map((a) => ({ prompt: `${a.name}: approve a command`, steps: [a.run, { text: 'Ran it.' }] })),
  );
});
afterAll(async () => {
  await server.close();
  console.log(
    ['', '## ACP agents: protocol signal → state in baton ls (goal ≤ 250 ms)', ...lines].join('\n'),
  );
});

function loggedAt(
  t: TestBaton,
  session: SessionView,
  match: (e: { type: string; to?: string }) => boolean,
): number {
  const event = readFileSync(join(t.home, 'sessions', session.id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; to?: string; ts: string })
    .findLast(match);
  if (event === undefined) throw new Error(`no such event in ${session.id}'s log`);
  return Date.parse(event.ts);
}

for (const agent of AGENTS) {
  it(
    `${agent.name}: permission request → needs_input, turn end → ready_for_review`,
    { timeout: 3 * WAIT },
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'baton-bench-acp-'));
      const t = new TestBaton(agent.env(server.url, home));
      try {
        const repo = t.repo();
        mkdirSync(t.home, { recursive: true });
        await t.ok(['dispatch', `${agent.name}: approve a command`, '--agent', agent.name, '--name', 'sig'], {
          cwd: repo,
        });
        const figure = (session: SessionView, signal: string, state: string, seen: number): string => {
          const at = loggedAt(t, session, (e) => e.type === signal);
          const changed = loggedAt(t, session, (e) => e.type === 'state.changed' && e.to === state);
          const client = seen - at;
          return `- ${agent.name}: ${signal} → ${state}: ${changed - at} ms in the log, ${client} ms to a client: ${client <= GOAL_MS ? 'MET' : 'NOT MET'}`;
        };
        const waiting = await t.waitForState('sig', 'needs_input', WAIT);
        lines.push(figure(waiting, 'approval.requested', 'needs_input', Date.now()));
        await t.ok(['approve', 'sig']);
        const done = await t.waitForState('sig', 'ready_for_review', WAIT);
        lines.push(figure(done, 'turn.completed', 'ready_for_review', Date.now()));
        expect(done.state).toBe('ready_for_review');
      } finally {
        t.cleanup();
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
}
