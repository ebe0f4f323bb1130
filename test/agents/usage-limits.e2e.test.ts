/**
 * A usage limit through the real `claude` and `codex` binaries (decision 262), against the scripted
 * model server answering as the vendors' APIs do: the subscription windows in the rate-limit
 * headers of every reply, then a 429 usage-limit error mid-task. The session is paused — needs
 * input, saying why and until when — not failed; the wall clock (libfaketime) jumps past the reset
 * and the watchdog resumes the same conversation, which finishes the work without redoing the
 * step done before the limit.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CostReport } from '../../src/api/watchdog.js';
import type { BatonEvent } from '../../src/events/index.js';
import { TestBaton } from '../support/baton.js';
import { FakeClock } from '../support/fake-clock.js';
import {
  anthropicWindowHeaders,
  codexWindowHeaders,
  realAgentsEnv,
  startModelServer,
  usageLimitStep,
  type ModelServer,
  type Scenario,
  type WindowsState,
} from '../support/model-server/index.js';

type Agent = 'claude' | 'codex';
const patch = (body: string): string => `*** Begin Patch\n${body}*** End Patch\n`;

const NOW_S = Math.floor(Date.now() / 1000);
/** Two hours to the 5-hour window's reset; the weekly one far off. */
const RESET_S = NOW_S + 2 * 3600;
const BEFORE: WindowsState = {
  short: { utilization: 0.9, resetsAt: RESET_S },
  week: { utilization: 0.4, resetsAt: NOW_S + 3 * 86_400 },
};
const AT_LIMIT: WindowsState = { ...BEFORE, short: { utilization: 1, resetsAt: RESET_S } };

const WRITE: Record<Agent, Scenario['steps'][number]> = {
  claude: { tools: [{ name: 'Write', input: { file_path: 'first.txt', content: 'first\n' } }] },
  codex: { tools: [{ name: 'apply_patch', input: patch('*** Add File: first.txt\n+first\n') }] },
};
const WRITE_REST: Record<Agent, Scenario['steps'][number]> = {
  claude: { tools: [{ name: 'Write', input: { file_path: 'rest.txt', content: 'rest\n' } }] },
  codex: { tools: [{ name: 'apply_patch', input: patch('*** Add File: rest.txt\n+rest\n') }] },
};
const HEADERS: Record<Agent, (w: WindowsState) => Record<string, string>> = {
  claude: (w) => anthropicWindowHeaders(w),
  codex: codexWindowHeaders,
};

/** One server per agent: the continue prompt is the same words for both, the steps are not. */
const scenarios = (agent: Agent): Scenario[] => [
  {
    prompt: `${agent}: work up to the limit`,
    steps: [
      { ...WRITE[agent], headers: HEADERS[agent](BEFORE) },
      usageLimitStep(agent === 'claude' ? 'anthropic' : 'openai', AT_LIMIT),
    ],
  },
  {
    // What the watchdog says at the reset; the model server answers it as the rest of the task.
    prompt: `The usage limit has reset. Continue where you left off`,
    steps: [WRITE_REST[agent], { text: 'Finished after the reset.' }],
  },
];

const WAIT = 45_000;
vi.setConfig({ testTimeout: 4 * WAIT });

/**
 * The claude binary refuses to start under libfaketime ("sem_open failed"): it runs through a
 * wrapper that drops the library, so only Baton's own processes see the jump (codex is a static
 * binary and never loads it). The agent's own sense of time plays no part here.
 */
function offTheFakeClock(claude: string, dir: string): string {
  const wrapper = join(dir, 'claude-real-clock');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec env -u LD_PRELOAD -u FAKETIME_SHARED -u FAKETIME_TIMESTAMP_FILE ${JSON.stringify(claude)} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

describe.each(['claude', 'codex'] as const)('%s at its usage limit', (agent) => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer(scenarios(agent));
  });
  afterAll(async () => {
    await server?.close();
  });
  let t: TestBaton;
  let clock: FakeClock;
  let agentHome: string;
  afterEach(() => {
    t?.cleanup();
    clock?.stop();
    rmSync(agentHome, { recursive: true, force: true });
    server.assertClean();
  });

  it('pauses with the window and reset, shows the windows, and resumes at the reset without redoing the first step', async () => {
    agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
    // Claude reads the subscription headers only for a claude.ai login: an OAuth token, not an API key.
    const subscriber =
      agent === 'claude' ? { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-scripted', ANTHROPIC_API_KEY: '' } : {};
    const env = realAgentsEnv(server.url, agentHome);
    t = new TestBaton({
      ...env,
      ...subscriber,
      ...(agent === 'claude'
        ? { BATON_CLAUDE_PATH: offTheFakeClock(env.BATON_CLAUDE_PATH!, agentHome) }
        : {}),
      BATON_WATCHDOG_TICK_MS: '100',
    });
    clock = await FakeClock.start(t.root);
    Object.assign(t.env, clock.env());
    const repo = t.repo();

    await t.ok(
      [
        'dispatch',
        `${agent}: work up to the limit`,
        '--agent',
        agent,
        '--name',
        'lim',
        '--permission-mode',
        'acceptEdits',
      ],
      { cwd: repo },
    );
    const paused = await t.waitForState('lim', 'needs_input', WAIT).catch(async (e: unknown) => {
      console.log(await t.ok(['logs', 'lim', '--json']));
      throw e;
    });
    const resetsAt = new Date(RESET_S * 1000).toISOString();
    expect(paused.reason).toMatchObject({ kind: 'note', until: resetsAt });
    expect(JSON.stringify(paused.reason)).toMatch(/paused at the usage limit \(5h window\)/);
    expect(readFileSync(join(paused.worktree, 'first.txt'), 'utf8')).toBe('first\n');
    expect(await t.ok(['ls'])).toMatch(/paused at the usage limit \(5h window\)/);

    // The windows the agent read from the headers, with what is left and the reset.
    const report = await t.json<CostReport>(['cost'], { cwd: repo });
    const short = report.windows.find((w) => w.agent === agent && w.name === '5h');
    expect(short).toMatchObject({ resetsAt });
    expect(short?.usedPercent).toBeGreaterThanOrEqual(90);
    expect(report.windows.find((w) => w.agent === agent && w.name === '7d')?.usedPercent).toBe(40);
    expect(await t.ok(['cost'], { cwd: repo })).toMatch(new RegExp(`${agent} 5h window \\d+% used`));

    const before = server.requestsFor(`${agent}: work up to the limit`).length;
    clock.set(2 * 3600 + 60);
    const done = await t.waitForState('lim', 'ready_for_review', WAIT);
    expect(readFileSync(join(done.worktree, 'rest.txt'), 'utf8')).toBe('rest\n');
    // The step before the limit was not asked for again: the resumed turn went on from the reset.
    expect(server.requestsFor(`${agent}: work up to the limit`)).toHaveLength(before);
    const events = (await t.ok(['logs', 'lim', '--json']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as BatonEvent);
    expect(events.flatMap((e) => (e.type === 'state.changed' ? [e.to] : []))).not.toContain('failed');
    expect(events.filter((e) => e.type === 'session.started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'turn.started')).toHaveLength(2);
  });
});
