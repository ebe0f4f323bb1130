/**
 * The destructive-action gate with the real `claude` binary, in every permission mode: a
 * blocked call never runs (bypassPermissions included, through the PreToolUse hook), its near
 * miss does, and a call the gate asks about waits for the user even in bypass mode.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledClaudePath, claudeEnv, type Scenario } from '../../../test/support/model-server/index.js';
import { adapterHarness } from '../../../test/support/adapter-harness.js';
import { waitForEvent } from '../../../test/support/wait.js';
import { sessionGate } from '../../policy/index.js';
import { PERMISSION_MODES } from '../../events/vocabulary.js';
import type { AgentEvent } from '../types.js';
import { claudeAgent, type ClaudeRun } from './index.js';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const is =
  <T extends AgentEvent['type']>(type: T) =>
  (e: AgentEvent): e is EventOf<T> =>
    e.type === type;
const bash = (command: string) => ({ tools: [{ name: 'Bash', input: { command, description: 'step' } }] });

const scenarios: Scenario[] = [
  ...PERMISSION_MODES.map((mode) => ({
    prompt: `delete home then build in ${mode}`,
    steps: [bash('FOO=1 rm -rf ~'), bash('rm -rf build/'), { text: 'Done.' }],
  })),
  ...PERMISSION_MODES.map((mode) => ({
    prompt: `write outside in ${mode}`,
    steps: [
      { tools: [{ name: 'Write', input: { file_path: '../outside.txt', content: 'out\n' } }] },
      { text: 'Tried.' },
    ],
  })),
];

const harness = adapterHarness<ClaudeRun>({
  adapter: claudeAgent,
  scenarios,
  executableOption: 'claudePath',
  defaultExecutable: bundledClaudePath,
  // bypassPermissions refuses to run as root unless told it is in a sandbox (test machines run as root).
  env: (url, home) => ({ ...claudeEnv({ url, home }), IS_SANDBOX: '1' }),
});
const gate = (ws: { repo: string; home: string }) =>
  sessionGate({ section: {}, worktree: ws.repo, baseBranch: 'main', branch: 'baton/s' }, ws.home);

describe('the gate with the real claude binary', () => {
  for (const mode of PERMISSION_MODES) {
    it(`blocks rm -rf of the home folder in ${mode} mode and lets rm -rf build/ in the worktree run`, async () => {
      const ws = harness.newWorkspace();
      writeFileSync(join(ws.home, 'precious.txt'), 'keep\n');
      mkdirSync(join(ws.repo, 'build'));
      writeFileSync(join(ws.repo, 'build', 'x'), 'x\n');
      const { events } = await harness.start(`delete home then build in ${mode}`, {
        permissionMode: mode,
        autoApprove: true,
        fresh: false,
        gate,
      });
      await waitForEvent(events, is('turn.completed'));
      expect(events.events.find(is('tool.blocked'))).toMatchObject({
        tool: 'Bash',
        rule: 'recursive-delete',
        input: 'FOO=1 rm -rf ~',
      });
      expect(existsSync(join(ws.home, 'precious.txt'))).toBe(true);
      expect(existsSync(join(ws.repo, 'build'))).toBe(false);
      // Claude was told why, and what to do instead.
      expect(harness.server.requestsFor(`delete home then build in ${mode}`).at(-2)?.text).toMatch(
        /Baton's safety gate blocked this call \(rule recursive-delete\)/,
      );
      // The near miss never reached the gate's approvals (in default mode Claude itself asks, and the harness allows).
      expect(events.events.filter(is('approval.requested')).every((e) => e.gate === undefined)).toBe(true);
    });

    it(`holds a write outside the worktree for the user in ${mode} mode, and a denial leaves the file unwritten`, async () => {
      const { run, events } = await harness.start(`write outside in ${mode}`, { permissionMode: mode, gate });
      const request = await waitForEvent(events, is('approval.requested'));
      expect(request).toMatchObject({ tool: 'Write', kind: 'edit', gate: 'write-outside' });
      await run.resolveApproval(request.requestId, { decision: 'deny', reason: 'stay in the worktree' });
      await waitForEvent(events, is('turn.completed'));
      expect(existsSync(join(harness.workspace.repo, '..', 'outside.txt'))).toBe(false);
      expect(events.events.filter(is('approval.requested'))).toHaveLength(1);
    });
  }
});
