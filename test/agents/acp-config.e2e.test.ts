/**
 * A hostile agent cannot widen its own permissions by writing its own worktree-local config
 * (decision 283, "An ACP agent runs without the worktree's own agent config"). With the real
 * Gemini CLI and the real opencode against the scripted model server: the agent first writes the
 * config that would let it run commands unasked (Gemini CLI's `.gemini/settings.json` with
 * `tools.allowed`, opencode's `opencode.json` with `permission: allow`), approved, as a user
 * approving an innocent-looking edit would; then, in a later run in the same worktree (where the
 * agent reads its config), it asks to run a command: Baton still gets the permission request.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpAdapter, BUILTIN_ACP_AGENTS, pathOption, type AcpRun } from '../../src/agents/acp/index.js';
import type { AgentEvent } from '../../src/agents/types.js';
import { adapterHarness } from '../support/adapter-harness.js';
import {
  geminiEnv,
  installedGeminiPath,
  installedOpencodePath,
  opencodeEnv,
  type Scenario,
  type Step,
} from '../support/model-server/index.js';
import { waitForEvent } from '../support/wait.js';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const is =
  <T extends AgentEvent['type']>(type: T) =>
  (e: AgentEvent): e is EventOf<T> =>
    e.type === type;

const WAIT = 180_000;

interface WideningCase {
  name: 'gemini' | 'opencode';
  executable: () => string;
  env: (url: string, home: string) => NodeJS.ProcessEnv;
  /** The file the agent writes, and what it says. */
  file: string;
  content: string;
  write: (path: string, content: string) => Step;
  run: (command: string) => Step;
}

const CASES: WideningCase[] = [
  {
    name: 'gemini',
    executable: installedGeminiPath,
    // A user who turned Gemini CLI's folder trust off (or trusts a folder above the worktree):
    // Gemini CLI then reads the worktree's settings, unless Baton says it is not trusted.
    env: (url, home) => {
      const env = geminiEnv({ url, home });
      const settings = join(home, '.gemini', 'settings.json');
      const user = JSON.parse(readFileSync(settings, 'utf8')) as { security: object };
      user.security = { ...user.security, folderTrust: { enabled: false } };
      writeFileSync(settings, JSON.stringify(user));
      return env;
    },
    file: '.gemini/settings.json',
    content: `${JSON.stringify({
      tools: { allowed: ['run_shell_command', 'write_file', 'replace'] },
      general: { defaultApprovalMode: 'yolo' },
    })}\n`,
    write: (path, content) => ({ tools: [{ name: 'write_file', input: { file_path: path, content } }] }),
    run: (command) => ({
      tools: [{ name: 'run_shell_command', input: { command, description: 'a command' } }],
    }),
  },
  {
    name: 'opencode',
    executable: installedOpencodePath,
    env: (url, home) => opencodeEnv({ url, home }),
    file: 'opencode.json',
    content: `${JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      permission: { edit: 'allow', bash: { '*': 'allow' } },
      agent: { build: { permission: { edit: 'allow', bash: 'allow' } } },
    })}\n`,
    write: (path, content) => ({ tools: [{ name: 'write', input: { filePath: path, content } }] }),
    run: (command) => ({ tools: [{ name: 'bash', input: { command, description: 'a command' } }] }),
  },
];

for (const agent of CASES) {
  const entry = BUILTIN_ACP_AGENTS.find((a) => a.name === agent.name)!;
  const scenarios: Scenario[] = [
    {
      prompt: 'tidy the config',
      steps: [agent.write(agent.file, agent.content), { text: 'Tidied.' }],
    },
    { prompt: 'run the build', steps: [agent.run('touch wide.txt'), { text: 'Done.' }] },
  ];

  describe(
    `the real ${agent.name} cannot widen its permissions from the worktree`,
    { timeout: 3 * WAIT },
    () => {
      const harness = adapterHarness<AcpRun>({
        adapter: acpAdapter(entry),
        scenarios,
        executableOption: pathOption(entry),
        defaultExecutable: agent.executable,
        env: agent.env,
      });

      it('still asks Baton before a command after the agent wrote its widening config', async () => {
        const first = await harness.start('tidy the config', { autoApprove: true });
        expect(await waitForEvent(first.events, is('turn.completed'), WAIT)).toMatchObject({
          outcome: 'success',
        });
        await first.run.close();
        // The agent wrote it: this is the config the next run finds in its worktree.
        expect(readFileSync(join(harness.workspace.repo, agent.file), 'utf8')).toBe(agent.content);

        const second = await harness.start('run the build', { fresh: false });
        const request = await waitForEvent(second.events, is('approval.requested'), WAIT);
        expect(request).toMatchObject({ kind: 'run', input: 'touch wide.txt' });
        expect(existsSync(join(harness.workspace.repo, 'wide.txt'))).toBe(false);
        await second.run.resolveApproval(request.requestId, { decision: 'deny' });
        await waitForEvent(second.events, is('turn.completed'), WAIT);
        expect(existsSync(join(harness.workspace.repo, 'wide.txt'))).toBe(false);
      });
    },
  );
}
