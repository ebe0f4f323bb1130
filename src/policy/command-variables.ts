/**
 * Variables whose value a program runs as a command line: git's editor, pager, ssh, external diff
 * and password prompt, and the editors and pagers other tools start. `GIT_EDITOR='rm -rf ~/repo;'
 * git commit` runs the deletion through `sh -c` (git's `run_command` with `use_shell`), so the
 * value is read as a script the command runs, wherever the variable is set (a prefix, `env`,
 * `sudo`, an earlier `export`), as decision 330 reads the files a command loads first
 * (decision 396, "Command lines in variables are read like the command").
 */
import { command, type Command, type Reader } from './command.js';
import type { SimpleCommand } from './shell.js';

/** Each variable, and what starts it (for the reason a finding gives). */
export const COMMAND_VARIABLES: ReadonlyMap<string, string> = new Map([
  ['GIT_EDITOR', "git's editor"],
  ['GIT_SEQUENCE_EDITOR', "git's rebase editor"],
  ['GIT_PAGER', "git's pager"],
  ['GIT_SSH_COMMAND', "git's ssh"],
  ['GIT_SSH', "git's ssh"],
  ['GIT_EXTERNAL_DIFF', "git's external diff"],
  ['GIT_ASKPASS', "git's password prompt"],
  ['GIT_PROXY_COMMAND', "git's proxy"],
  ['SSH_ASKPASS', "ssh's password prompt"],
  ['EDITOR', 'the editor'],
  ['VISUAL', 'the editor'],
  ['PAGER', 'the pager'],
  ['MANPAGER', "man's pager"],
  ['LESSOPEN', "less's input filter"],
]);

/** The commands the command-line variables of `found` run (none when it sets none). */
export function variableCommands(
  found: Command,
  simple: SimpleCommand,
  home: string,
  depth: number,
  read: Reader,
): Command[] {
  const values = found.values;
  if (values === undefined) return [];
  const out: Command[] = [];
  for (const [name] of COMMAND_VARIABLES) {
    const value = values[name];
    if (value === undefined || value.text.trim() === '') continue;
    const via = [...found.via, `${name}=`];
    // Known only at run time: a program named by a variable, which the gate asks about.
    if (value.dynamic) {
      out.push(command(simple, value.text, [], via, false, found.cwd));
      continue;
    }
    // less's `LESSOPEN='|filter %s'`: the bars say how its output is read, not what runs.
    const line = name === 'LESSOPEN' ? value.text.replace(/^\|+-?/, '') : value.text;
    out.push(...read.script(line, found.cwd ?? '/', home, depth + 1, via));
  }
  return out;
}
