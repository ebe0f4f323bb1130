/**
 * Issue figures for the real agents: time from dispatch to the agent's first event through Baton
 * vs the same CLI run by hand on the same scripted model, and memory per running session.
 * Prints figures; asserts only that the runs worked (timings are for people to read).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  bundledClaudePath,
  installedCodexPath,
  realAgentsEnv,
  startModelServer,
  type ModelServer,
} from '../test/support/model-server/index.js';
import { TestBaton } from '../test/support/baton.js';

const RUNS = 5;
let server: ModelServer;
let agentHome: string;
let t: TestBaton;
let repo: string;
const lines: string[] = [];

beforeAll(async () => {
  server = await startModelServer([{ prompt: 'say hello', steps: [{ text: 'Hello.' }] }]);
  agentHome = mkdtempSync(join(tmpdir(), 'baton-bench-agents-'));
  t = new TestBaton({ ...realAgentsEnv(server.url, agentHome), BATON_MAX_CONCURRENT: '50' });
  repo = t.repo();
  await t.ok(['daemon', 'start']);
});
afterAll(async () => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  await server.close();
  console.log(['', '## Real agents: dispatch → first agent event, Baton vs by hand', ...lines].join('\n'));
});

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Milliseconds from spawn to the first stdout line and to the line matching `done`. */
function byHand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  done: RegExp,
): Promise<{ first: number; end: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let first: number | undefined;
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      first ??= performance.now() - t0;
      buffer += chunk.toString();
      if (done.test(buffer)) {
        resolve({ first, end: performance.now() - t0 });
        child.kill('SIGKILL');
      }
    });
    child.on('exit', () => reject(new Error(`${command} exited before finishing: ${buffer.slice(-500)}`)));
  });
}

function memory(pid: number): { rss: number; pss: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
  return { rss: field('Rss'), pss: field('Pss') };
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Every process below `pid`: the agent runs under a sandbox's wrapper, not as the host's child. */
function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);
}

for (const agent of ['claude', 'codex'] as const) {
  it(`${agent}: dispatch to first agent event and to the end of the turn`, async () => {
    const viaBaton: { first: number; end: number }[] = [];
    const hand: { first: number; end: number }[] = [];
    let mem:
      { host: { rss: number; pss: number }; agent: { rss: number; pss: number; count: number } } | undefined;
    for (let i = 0; i < RUNS; i++) {
      const client = t.client(repo);
      const t0 = performance.now();
      const { session } = await client.call('POST /api/sessions', {
        body: { prompt: 'say hello', cwd: repo, agent, name: `${agent}-${i}` },
      });
      const identified = await t.waitForEvent(session.id, (e) => e.type === 'agent.identified', 60_000);
      const firstAt = Date.parse(identified.ts);
      const ended = await t.waitForEvent(session.id, (e) => e.type === 'turn.completed', 60_000);
      // Event times are wall-clock; convert the start to the same clock.
      const start = Date.now() - (performance.now() - t0);
      viaBaton.push({ first: firstAt - start, end: Date.parse(ended.ts) - start });
      if (i === RUNS - 1) {
        const view = await t.waitForState(session.id, 'ready_for_review', 60_000);
        const host = memory(view.hostPid!);
        const agentPids = descendantsOf(view.hostPid!);
        const sum = agentPids
          .map(memory)
          .reduce((a, b) => ({ rss: a.rss + b.rss, pss: a.pss + b.pss }), { rss: 0, pss: 0 });
        mem = { host, agent: { ...sum, count: agentPids.length } };
      }
      const env = { ...t.env };
      hand.push(
        agent === 'claude'
          ? await byHand(
              bundledClaudePath(),
              ['-p', 'say hello', '--output-format', 'stream-json', '--verbose'],
              env,
              /"type":"result"/,
            )
          : await byHand(
              process.execPath,
              [installedCodexPath(), 'exec', '--json', '--skip-git-repo-check', 'say hello'],
              env,
              /"type":"turn\.completed"/,
            ),
      );
    }
    const b = { first: median(viaBaton.map((r) => r.first)), end: median(viaBaton.map((r) => r.end)) };
    const h = { first: median(hand.map((r) => r.first)), end: median(hand.map((r) => r.end)) };
    const goal = 1.1 * h.first + 150;
    lines.push(
      `${agent}: Baton first agent event median ${b.first.toFixed(0)} ms, turn end ${b.end.toFixed(0)} ms; by hand first line ${h.first.toFixed(0)} ms, result ${h.end.toFixed(0)} ms`,
      `  ratio first event ${(b.first / h.first).toFixed(2)}×; goal ≤ 1.1×hand+150 ms = ${goal.toFixed(0)} ms: ${b.first <= goal ? 'MET' : 'NOT MET'}`,
      `  memory of one idle session: host RSS ${mem!.host.rss.toFixed(1)} MB (PSS ${mem!.host.pss.toFixed(1)}), the agent's processes RSS ${mem!.agent.rss.toFixed(1)} MB (PSS ${mem!.agent.pss.toFixed(1)}) in ${mem!.agent.count} processes`,
    );
    expect(viaBaton).toHaveLength(RUNS);
  });
}
