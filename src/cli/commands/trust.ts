/**
 * `baton trust`: shows what the repository's `.baton/config.json` would run (setup, teardown,
 * merge check, routines, variables), then trusts exactly that content — asked on a terminal, or
 * with `--yes` for scripts (decision 161). The digest the user read is what is trusted: a file
 * changed in between is refused, not trusted unseen.
 */
import { createInterface } from 'node:readline/promises';
import type { TrustView } from '../../api/environments.js';
import { EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import { unguarded } from '../terminal.js';

export async function trust(ctx: Context, opts: { yes?: boolean; json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('GET /api/trust', {});
  if (view.sha256 === null || view.trusted) {
    if (opts.json === true) return printJson(ctx, view);
    ctx.out.write(
      view.sha256 === null
        ? `${view.file} runs no commands: there is nothing to trust.\n`
        : `${describe(view)}These commands are trusted (sha256 ${view.sha256.slice(0, 12)}…).\n`,
    );
    return;
  }
  if (opts.json !== true) ctx.out.write(describe(view));
  if (opts.yes !== true && !(await confirm())) {
    if (!process.stdin.isTTY)
      throw new InvalidInputError(
        'Nothing trusted: pass --yes to trust these commands from a script (read them first: `baton trust --json`).',
      );
    ctx.out.write('Not trusted; nothing of it will run.\n');
    process.exitCode = EXIT_CODES.refused.code;
    return;
  }
  const trusted = await api.call('POST /api/trust', { body: { sha256: view.sha256 } });
  if (opts.json === true) return printJson(ctx, trusted);
  ctx.out.write(`Trusted (sha256 ${view.sha256.slice(0, 12)}…). A change to these commands asks again.\n`);
}

function describe(view: TrustView): string {
  const lines = view.commands.map((c) => `  ${c.part}: ${c.command}\n`).join('');
  return `${view.file} runs, as you:\n${lines}`;
}

async function confirm(): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: unguarded(process.stdout) });
  try {
    const answer = await prompt.question('Trust these commands? Type "yes" to trust: ');
    return answer.trim().toLowerCase() === 'yes';
  } finally {
    prompt.close();
  }
}
