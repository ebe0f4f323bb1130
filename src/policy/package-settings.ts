/**
 * Settings of a package manager that make `npm test`/`yarn build` run a program other than the
 * script package.json names (decision 177); read before a package script is judged (scripts.ts).
 */
import { placeOf } from './paths.js';
import { joinPath } from './shell.js';
import type { Command } from './command.js';
import type { RuleContext } from './types.js';

/**
 * Package managers' settings that choose the program a script runs on or load code into every
 * Node it starts: `script-shell=./evil.sh` in a `.npmrc` makes `npm test` run that file whatever
 * package.json says. Read from the command line, the command's variables and the project's own
 * `.npmrc`/`.yarnrc`/`.yarnrc.yml` where an agent may have written it (decision 177); the user's
 * own (`~/.npmrc`, or one unchanged since the base) are the user's.
 */
const CODE_SETTINGS =
  /^\s*["']?(script-shell|shell|node-options|git|onload-script|init-module|yarn-path|yarnPath|plugins)["']?\s*[=:]/m;
const CODE_OPTIONS = /^--(script-shell|shell|node-options|git|onload-script|init-module)(=|$)/;
const CODE_VARIABLES =
  /^(npm_config_|NPM_CONFIG_|YARN_)(script_shell|shell|node_options|git|onload_script|init_module|yarn_path)$/i;

export function codeRunningSetting(command: Command, cwd: string, context: RuleContext): string | undefined {
  const option = command.args.find((a) => CODE_OPTIONS.test(a.text));
  if (option !== undefined)
    return `${command.name} ${option.text.split('=')[0] ?? ''} runs a program the gate does not read`;
  const variable = (command.env ?? []).find((v) => CODE_VARIABLES.test(v));
  if (variable !== undefined) return `${variable} makes ${command.name} run a program the gate does not read`;
  for (const name of ['.npmrc', '.yarnrc', '.yarnrc.yml']) {
    const path = joinPath(cwd, name);
    const where = placeOf(path, false, context);
    if (where !== 'inside' && where !== 'writable' && where !== 'unknown') continue;
    const file = context.disk?.script(path);
    if (file === undefined || !('text' in file) || 'trusted' in file) continue;
    const found = CODE_SETTINGS.exec(file.text);
    if (found !== null)
      return `${path} sets ${found[1] ?? ''}, which makes ${command.name} run a program the gate does not read`;
  }
  return undefined;
}
