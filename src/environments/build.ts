/**
 * Making a session's plan at dispatch, in two halves around the worktree: `checkEnvironment`
 * before anything is made (every bad key, path or template refused with its name), and
 * `completePlan` once the session has its name, branch, worktree and ports.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETUP_SECONDS, type RepoConfig } from '../projects/index.js';
import { checkedWorktreeSection, EnvironmentPlan } from './plan.js';
import { portNames, type PortRequest } from './ports.js';
import { fillTemplates, identifierOf } from './template.js';

export interface CheckedEnvironment {
  root: string;
  config: RepoConfig;
  worktree: Awaited<ReturnType<typeof checkedWorktreeSection>>;
  ports: PortRequest | undefined;
}

export interface SessionFacts {
  id: string;
  name: string;
  branch: string;
  worktree: string;
}

/** What a template may use: the session's facts and its ports. */
export function templateValues(
  session: SessionFacts,
  root: string,
  ports: readonly { name: string; port: number }[],
): Record<string, string> {
  const values: Record<string, string> = {
    SESSION: identifierOf(session.name),
    SESSION_NAME: session.name,
    SESSION_ID: session.id,
    BRANCH: session.branch,
    WORKTREE: session.worktree,
    PROJECT_ROOT: root,
  };
  for (const p of ports) values[p.name] = String(p.port);
  return values;
}

export async function checkEnvironment(root: string, config: RepoConfig): Promise<CheckedEnvironment> {
  const worktree = await checkedWorktreeSection(root, config);
  const ports =
    config.ports === undefined
      ? undefined
      : { count: config.ports.count, names: config.ports.env, range: config.ports.range };
  // Templates are tried now with stand-in values, so an unknown name fails before anything is made.
  const standIn = templateValues(
    { id: 'x', name: 'x', branch: 'x', worktree: 'x' },
    root,
    ports === undefined ? [] : portNames(ports).map((name) => ({ name, port: 1 })),
  );
  fillTemplates(config.env ?? {}, standIn);
  return { root, config, worktree, ports };
}

export function completePlan(
  checked: CheckedEnvironment,
  session: SessionFacts,
  ports: readonly { name: string; port: number }[],
  mode: { keepBranch?: boolean; inPlace?: boolean } = {},
): EnvironmentPlan {
  const { config } = checked;
  const values = templateValues(session, checked.root, ports);
  const portEnv = Object.fromEntries(ports.map((p) => [p.name, String(p.port)]));
  const settingSources: Record<string, string[]> = {};
  if (config.agents?.claude !== undefined) settingSources.claude = config.agents.claude.settingSources;
  if (config.agents?.codex !== undefined) settingSources.codex = config.agents.codex.settingSources;
  // In place, the checkout is the user's own, already set up: nothing is copied, shared, run or torn down.
  const inPlace = mode.inPlace === true;
  return EnvironmentPlan.parse({
    source: checked.root,
    settingSources,
    ...(inPlace ? {} : checked.worktree),
    setup: inPlace ? [] : (config.worktree?.setup ?? []),
    setupTimeoutSeconds: config.worktree?.setupTimeoutSeconds ?? DEFAULT_SETUP_SECONDS,
    teardown: inPlace ? [] : (config.worktree?.teardown ?? []),
    keepBranch: mode.keepBranch === true,
    inPlace,
    ports,
    env: { ...portEnv, ...fillTemplates(config.env ?? {}, values) },
  });
}

/**
 * The skill shipped with the package (`skills/baton/SKILL.md`): how an agent in a session uses
 * Baton's MCP tools well — ask, leave a trail, hand over, never approve itself (decision 187). The
 * same file a user may copy into their own agent's skills; here without its front matter.
 */
export const SKILL_FILE = fileURLToPath(new URL('../../skills/baton/SKILL.md', import.meta.url));

let skill: string | undefined;

export function batonSkill(): string {
  skill ??= readFileSync(SKILL_FILE, 'utf8')
    .replace(/^---\n[\s\S]*?\n---\n/, '')
    .trim();
  return skill;
}

/**
 * Baton's own instructions for the agent, appended to its system prompt (never written into
 * CLAUDE.md or AGENTS.md): where it works, that others work alongside it, its ports, and the
 * skill of working in Baton. Both agents get the same text: Claude as an appended system prompt,
 * Codex as the thread's developer instructions.
 */
export function agentInstructions(
  session: { cwd: string; branch?: string | undefined },
  plan: EnvironmentPlan,
): string {
  const lines = [
    `You are one of several coding agents Baton runs in parallel on this repository. You work in your own git worktree, ${session.cwd}${session.branch === undefined ? '' : `, on branch ${session.branch}`}; other agents work on other branches, so change files only here.`,
  ];
  if (plan.ports.length > 0) {
    lines.push(
      `Ports reserved for this session (also in the environment): ${plan.ports.map((p) => `${p.name}=${p.port}`).join(', ')}. Start servers on these, not on the project's usual ports, which another session or the user may be using.`,
    );
  }
  lines.push('', batonSkill());
  return lines.join('\n');
}
