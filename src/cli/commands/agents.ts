/**
 * `baton agents`: every agent the supervisor can run, as it sees them — installed where, signed
 * in how, and what Baton can do with each (approvals, resume, usage, import); the fix for one
 * that is not ready.
 */
import type { AgentListing } from '../../api/doctor.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export async function agents(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const { agents: list } = await (await client(ctx)).call('GET /api/agents/list');
  if (opts.json === true) return printJson(ctx, { agents: list });
  const width = Math.max(...list.map((a) => a.name.length));
  for (const agent of list) {
    const ready = agent.path !== undefined && agent.fix === undefined;
    const where = agent.path === undefined ? 'not installed' : agent.path;
    const command = [agent.command, ...agent.args].join(' ');
    ctx.out.write(
      `${ready ? '✓' : '✗'} ${agent.name.padEnd(width)}  ${agent.title} (${protocolName(agent)}${agent.source === 'config' ? ', your entry' : ''}: ${command})\n`,
    );
    ctx.out.write(
      `  ${''.padEnd(width)}  ${where}${agent.signedIn === undefined ? '' : `, signed in: ${agent.signedIn}`}\n`,
    );
    ctx.out.write(`  ${''.padEnd(width)}  supports: ${supportText(agent.supports)}\n`);
    if (agent.fix !== undefined) ctx.out.write(`  ${''.padEnd(width)}  fix: ${agent.fix}\n`);
  }
}

function protocolName(agent: AgentListing): string {
  switch (agent.protocol) {
    case 'acp':
      return 'Agent Client Protocol';
    case 'claude-agent-sdk':
      return 'Claude Agent SDK';
    case 'codex-app-server':
      return 'codex app-server';
    case 'scripted':
      return 'built in';
  }
}

export function supportText(s: AgentListing['supports']): string {
  return [
    s.approvals ? 'approvals' : 'no approvals',
    s.resume === 'native' ? 'resume' : 'resume as a new conversation',
    s.interrupt ? 'stop' : 'no stop',
    s.usage === 'cost' ? 'tokens and cost' : s.usage === 'tokens' ? 'tokens (priced by model)' : 'no usage',
    s.import ? 'transcript import' : 'no transcript import',
  ].join(', ');
}
