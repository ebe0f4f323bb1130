/**
 * Dangerous permission modes (agents act without asking) are refused for a folder until the user
 * has accepted them there once, interactively — never from a script or a pipe.
 */
import { createInterface } from 'node:readline/promises';
import { DANGEROUS_PERMISSION_MODE } from '../../events/vocabulary.js';
import { EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import type { Context } from '../context.js';
import { unguarded } from '../terminal.js';

/** Asks on the terminal; false when there is no terminal to ask on, or the answer is not yes. */
export async function confirmDangerousMode(ctx: Context, root: string, mode: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
  ctx.out.write(
    [
      `WARNING: --permission-mode ${mode} lets agents in ${root}`,
      '  edit any file and run any command without asking you first.',
      '  Only accept this for a folder you are prepared to lose or can restore.',
      '',
    ].join('\n'),
  );
  const prompt = createInterface({ input: process.stdin, output: unguarded(process.stdout) });
  try {
    const answer = await prompt.question(`Accept ${mode} for ${root}? Type "yes" to accept: `);
    return answer.trim().toLowerCase() === 'yes';
  } finally {
    prompt.close();
  }
}

export async function acceptDangerous(ctx: Context): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new InvalidInputError(
      'accept-dangerous must be run in a terminal: accepting is a decision for a person, not a script.',
    );
  }
  const api = await client(ctx);
  const { execFileSync } = await import('node:child_process');
  let root: string;
  try {
    root = execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: ctx.cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    throw new InvalidInputError(`${ctx.cwd} is not inside a git repository`);
  }
  if (!(await confirmDangerousMode(ctx, root, DANGEROUS_PERMISSION_MODE))) {
    ctx.out.write('Not accepted.\n');
    // Consent refused: the consent-needed exit code, so a wrapper script does not carry on.
    process.exitCode = EXIT_CODES.refused.code;
    return;
  }
  const accepted = await api.call('POST /api/dangerous-mode/accept', { body: { cwd: ctx.cwd } });
  ctx.out.write(`Accepted for ${accepted.root}.\n`);
}
