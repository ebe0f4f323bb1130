/**
 * The destructive-action gate with the real `codex` binary, in every permission mode. Sandboxed
 * modes ask Baton before a command leaves the sandbox, and the gate answers first; bypass mode
 * runs Codex with approval policy `untrusted`, so every command it does not know to be safe
 * reaches the gate, and what the gate allows runs without asking anyone.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedCodexPath, codexEnv, type Scenario } from '../../../test/support/model-server/index.js';
import { adapterHarness } from '../../../test/support/adapter-harness.js';
import { waitForEvent } from '../../../test/support/wait.js';
import { sessionGate } from '../../policy/index.js';
import { PERMISSION_MODES } from '../../events/vocabulary.js';
import type { AgentEvent } from '../types.js';
import { codexAgent, type CodexRun } from './index.js';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const is =
  <T extends AgentEvent['type']>(type: T) =>
  (e: AgentEvent): e is EventOf<T> =>
    e.type === type;
/** Outside bypass a command leaves the sandbox only when the model asks for it: the dangerous case. */
const exec = (cmd: string, escalate: boolean) => ({
  tools: [
    {
      name: 'exec_command',
      input: escalate ? { cmd, sandbox_permissions: 'require_escalated', justification: 'needed' } : { cmd },
    },
  ],
});

const scenarios: Scenario[] = [
  ...PERMISSION_MODES.map((mode) => ({
    prompt: `delete home then build in ${mode}`,
    steps: [
      exec('FOO=1 rm -rf ~', mode !== 'bypassPermissions'),
      exec('rm -rf build/', false),
      { text: 'Done.' },
    ],
  })),
  ...PERMISSION_MODES.map((mode) => ({
    prompt: `drop a table in ${mode}`,
    steps: [
      exec(`psql -c "DROP TABLE users" || echo tried > tried.txt`, mode !== 'bypassPermissions'),
      { text: 'Tried.' },
    ],
  })),
];

const harness = adapterHarness<CodexRun>({
  adapter: codexAgent,
  scenarios,
  executableOption: 'codexPath',
  defaultExecutable: installedCodexPath,
  env: (url, home) => codexEnv({ url, home }),
});
const gate = (ws: { repo: string; home: string }) =>
  sessionGate({ section: {}, worktree: ws.repo, baseBranch: 'main', branch: 'baton/s' }, ws.home);

describe('the gate with the real codex binary', () => {
  for (const mode of PERMISSION_MODES) {
    it(`blocks rm -rf of the home folder in ${mode} mode and lets rm -rf build/ in the worktree run`, async () => {
      const ws = harness.newWorkspace();
      writeFileSync(join(ws.home, 'precious.txt'), 'keep\n');
      mkdirSync(join(ws.repo, 'build'));
      writeFileSync(join(ws.repo, 'build', 'x'), 'x\n');
      // Codex's own approvals (it asks before any `rm -rf` in a sandboxed mode) are granted, as a user would.
      const { events } = await harness.start(`delete home then build in ${mode}`, {
        permissionMode: mode,
        fresh: false,
        gate,
        autoApprove: true,
      });
      await waitForEvent(events, is('turn.completed'));
      expect(events.events.find(is('tool.blocked'))).toMatchObject({
        tool: 'shell',
        rule: 'recursive-delete',
      });
      expect(existsSync(join(ws.home, 'precious.txt'))).toBe(true);
      expect(existsSync(join(ws.repo, 'build'))).toBe(false);
      // The block needed no one. In bypass mode nothing reached the user at all: the near miss ran by the gate's leave.
      const asked = events.events.filter(is('approval.requested'));
      expect(asked.every((e) => e.gate === undefined && e.input === 'rm -rf build/')).toBe(true);
      if (mode === 'bypassPermissions') expect(asked).toEqual([]);
      expect(
        JSON.stringify(harness.server.requestsFor(`delete home then build in ${mode}`).at(-1)?.body),
      ).toMatch(/Baton's safety gate blocked this call/);
    });

    it(`asks the user about destructive SQL in ${mode} mode, and a denial keeps it from running`, async () => {
      const { run, events } = await harness.start(`drop a table in ${mode}`, { permissionMode: mode, gate });
      const request = await waitForEvent(events, is('approval.requested'));
      expect(request).toMatchObject({ tool: 'shell', kind: 'run', gate: 'sql-destructive' });
      await run.resolveApproval(request.requestId, { decision: 'deny', reason: 'not the database' });
      await waitForEvent(events, is('turn.completed'));
      expect(existsSync(join(harness.workspace.repo, 'tried.txt'))).toBe(false);
    });
  }
});
