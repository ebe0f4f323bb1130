/**
 * The first dispatch that names no agent, on a terminal, with none configured: Baton asks once
 * which of the agents installed here to run and saves the answer as `baton config set agent`
 * would (decision 185). Anywhere else the supervisor chooses, or refuses naming the fix.
 */
import { createInterface } from 'node:readline/promises';
import type { AgentId } from '../../events/vocabulary.js';
import { readUserConfig, writeUserConfig } from '../../shared/config.js';
import { homePaths } from '../../shared/paths.js';
import type { SupervisorClient } from '../client.js';
import type { Context } from '../context.js';
import { unguarded } from '../terminal.js';

/** The agent the person chose (and saved), or undefined when there is nothing to ask or no one to ask. */
export async function askForAgent(ctx: Context, api: SupervisorClient): Promise<AgentId | undefined> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  const report = await api.call('GET /api/agents');
  if (report.configured !== null) return undefined;
  // Claude and Codex first; the ACP agents only when neither is installed (decision 281).
  const found = report.agents.filter((a) => a.path !== undefined);
  const real = found.filter((a) => a.agent === 'claude' || a.agent === 'codex');
  const installed = real.length > 0 ? real : found;
  if (installed.length === 0) return undefined;
  ctx.out.write('No agent is chosen yet. Installed on this machine:\n');
  installed.forEach((a, i) =>
    ctx.out.write(
      `  ${i + 1}) ${a.agent.padEnd(8)} ${a.path}${a.signedIn === undefined ? `  (not signed in: ${a.fix})` : ''}\n`,
    ),
  );
  const prompt = createInterface({ input: process.stdin, output: unguarded(process.stdout) });
  let answer: string;
  try {
    answer = (
      await prompt.question(`Which one should Baton run? [1-${installed.length}, Enter for 1] `)
    ).trim();
  } finally {
    prompt.close();
  }
  const byNumber = answer === '' ? installed[0] : installed[Number(answer) - 1];
  const picked = byNumber ?? installed.find((a) => a.agent === answer);
  if (picked === undefined) {
    ctx.out.write(`"${answer}" is none of them; nothing saved.\n`);
    return undefined;
  }
  const path = homePaths(ctx.home).config;
  writeUserConfig(path, { ...readUserConfig(path), agent: picked.agent });
  ctx.out.write(
    `Saved: ${picked.agent} runs when no --agent is given (change it with baton config set agent <name>).\n`,
  );
  return picked.agent;
}
