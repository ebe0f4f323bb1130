/**
 * `baton completion bash|zsh|fish`: a completion script for the shell, made from the command
 * line's own definition (so it never drifts from it), completing commands, their options, and
 * live session names (asked of a running supervisor; none is started for a completion).
 */
import type * as Commander from 'commander';
import { InvalidInputError } from '../../shared/errors.js';
import { homePaths } from '../../shared/paths.js';
import { tryExisting } from '../client.js';
import type { Context } from '../context.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Spec {
  name: string;
  options: string[];
  /** Whether its arguments are sessions. */
  sessions: boolean;
}

/** Commands (with `daemon start` style subcommands as `daemon`'s words) and their long and short options. */
export function specOf(program: Commander.Command): Spec[] {
  const specs: Spec[] = [];
  for (const command of program.commands) {
    if (command.name().startsWith('__')) continue;
    const args =
      (command as unknown as { registeredArguments: { name(): string }[] }).registeredArguments ?? [];
    const options = command.options.flatMap((o) =>
      [o.long, o.short].filter((f): f is string => f !== undefined),
    );
    specs.push({
      name: command.name(),
      options: [...options, '--help'],
      sessions: args.some((a) => a.name().startsWith('session')),
    });
    for (const sub of command.commands)
      specs.push({
        name: `${command.name()} ${sub.name()}`,
        options: sub.options.flatMap((o) => (o.long === undefined ? [] : [o.long])),
        sessions: false,
      });
  }
  return specs;
}

export function completion(ctx: Context, shell: string, program: Commander.Command): void {
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new InvalidInputError(`No completion for "${shell}"; shells: ${SHELLS.join(', ')}`);
  const specs = specOf(program);
  ctx.out.write(shell === 'bash' ? bash(specs) : shell === 'zsh' ? zsh(specs) : fish(specs));
}

/** Session names for completion, one per line; nothing (and no supervisor started) when none runs. */
export async function sessionNames(ctx: Context): Promise<void> {
  const api = await tryExisting(homePaths(ctx.home), ctx.cwd).catch(() => undefined);
  if (api === undefined) return;
  const { sessions } = await api.call('GET /api/sessions', { query: {} });
  ctx.out.write([...new Set(sessions.map((s) => s.name))].map((n) => `${n}\n`).join(''));
}

const top = (specs: Spec[]): string[] => [...new Set(specs.map((s) => s.name.split(' ')[0] as string))];
const quote = (words: string[]): string => words.join(' ');

function bash(specs: Spec[]): string {
  const cases = specs
    .filter((s) => !s.name.includes(' '))
    .map((s) => {
      const subs = specs
        .filter((x) => x.name.startsWith(`${s.name} `))
        .map((x) => x.name.split(' ')[1] as string);
      return `    ${s.name}) opts="${quote([...s.options, ...subs])}"; sessions=${s.sessions ? 1 : 0} ;;`;
    })
    .join('\n');
  return `# baton completion for bash: source <(baton completion bash)
_baton() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" opts="" sessions=0
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${quote(top(specs))}" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [ "$sessions" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$(baton __sessions 2>/dev/null)" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  fi
}
complete -F _baton baton
`;
}

function zsh(specs: Spec[]): string {
  // zsh runs bash completions through bashcompinit: one definition to keep right.
  return `# baton completion for zsh: source <(baton completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(specs).split('\n').slice(1).join('\n')}`;
}

function fish(specs: Spec[]): string {
  const lines = ['# baton completion for fish: baton completion fish | source', 'complete -c baton -f'];
  lines.push(`complete -c baton -n '__fish_use_subcommand' -a '${quote(top(specs))}'`);
  for (const s of specs.filter((x) => !x.name.includes(' '))) {
    for (const option of s.options.filter((o) => o.startsWith('--')))
      lines.push(`complete -c baton -n '__fish_seen_subcommand_from ${s.name}' -l ${option.slice(2)}`);
    if (s.sessions)
      lines.push(
        `complete -c baton -n '__fish_seen_subcommand_from ${s.name}' -a '(baton __sessions 2>/dev/null)'`,
      );
  }
  return lines.join('\n') + '\n';
}
