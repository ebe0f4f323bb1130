/**
 * A script the gate cannot read: a shell or `eval` handed text only known at run time
 * (`bash -c "$CMD"`, `eval "$X"`, `curl … | sh`, `xargs sh -c`, `source <(…)`), a program named
 * by a variable (`$X -rf /`), or a script file it cannot read (scripts.ts). Whatever it does,
 * the gate cannot say, so it asks.
 */
import { UNKNOWN } from './shell.js';
import { STDIN_FILES } from './command.js';
import type { CommandRule } from './types.js';

export const OPAQUE_SCRIPT = 'opaque-script';
export const SHELLS_AND_EVAL = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'eval',
  'source',
  '.',
]);

export const OPAQUE: CommandRule = {
  id: OPAQUE_SCRIPT,
  title: 'a shell or eval given a script only known at run time (bash -c "$X", curl … | sh)',
  action: 'ask',
  suggest: 'run the commands themselves, written out',
  check(command) {
    if (command.name.includes(UNKNOWN))
      return {
        rule: OPAQUE_SCRIPT,
        why: 'the program to run is only known at run time (a variable or a substitution as the command)',
        uncertain: true,
      };
    if (!SHELLS_AND_EVAL.has(command.name)) return undefined;
    // The file a shell or `source` runs: `source <(curl …)`, `bash "$SCRIPT"` (a named file is read, scripts.ts).
    const file = command.args.find((a) => !a.text.startsWith('-') || a.dynamic);
    if (
      command.name !== 'eval' &&
      file?.dynamic === true &&
      !command.args.some((a) => /^-[a-zA-Z]*c/.test(a.text))
    )
      return {
        rule: OPAQUE_SCRIPT,
        why: `${command.name} runs a script file only known at run time`,
        uncertain: true,
      };
    // What arrives on stdin, when the script does not say (`cat x | source /dev/stdin`).
    if (file !== undefined && STDIN_FILES.has(file.text))
      return { rule: OPAQUE_SCRIPT, why: `${command.name} runs what arrives on its stdin`, uncertain: true };
    if (command.name === 'source' || command.name === '.') return undefined;
    if (command.stdinUnknown)
      return {
        rule: OPAQUE_SCRIPT,
        why: `${command.name} runs a script piped in from another program`,
        uncertain: true,
      };
    const unknownArg = command.args.some((a) => a.dynamic);
    if (command.name === 'eval' && unknownArg)
      return { rule: OPAQUE_SCRIPT, why: 'eval runs text only known at run time', uncertain: true };
    if (
      command.name !== 'eval' &&
      (command.moreArgs || (unknownArg && command.args.some((a) => /^-[a-zA-Z]*c/.test(a.text))))
    ) {
      return {
        rule: OPAQUE_SCRIPT,
        why: `${command.name} -c runs a script only known at run time`,
        uncertain: true,
      };
    }
    return undefined;
  },
};
