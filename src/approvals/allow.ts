/**
 * Allow rules, matched: a rule with a pattern allows a command whose every program starts with
 * the pattern's words (`npm test` allows `npm test -- -t x`, not `npm test && rm x`); a rule with
 * only a tool allows every call of that tool. A call the gate asked about is never matched —
 * the gate wins — and neither is a command that does not parse.
 */
import { commandsOf, type Command, type PendingCall } from '../policy/index.js';

export interface AllowRule {
  id: number;
  tool: string | null;
  pattern: string | null;
}

export type { PendingCall };

export function matchAllowRule<R extends AllowRule>(
  rules: readonly R[],
  call: PendingCall,
  cwd: string,
  home: string,
): R | undefined {
  if (call.gate !== undefined) return undefined;
  const byTool = rules.find((r) => r.pattern === null && r.tool === call.tool);
  if (byTool !== undefined) return byTool;
  if (call.kind !== 'run') return undefined;
  const patterns = rules.filter((r) => r.pattern !== null && (r.tool === null || r.tool === call.tool));
  if (patterns.length === 0) return undefined;
  let commands: Command[];
  try {
    commands = commandsOf(call.input, cwd, home);
  } catch {
    return undefined;
  }
  if (commands.length === 0) return undefined;
  let matched: R | undefined;
  for (const command of commands) {
    const rule = patterns.find((r) => startsWith(command, patternWords(r.pattern ?? '', cwd, home)));
    if (rule === undefined) return undefined;
    matched ??= rule;
  }
  return matched;
}

/** A pattern's words (`npm test`, `npm test *`): a trailing `*` says "and any arguments", which every pattern means. */
export function patternWords(pattern: string, cwd: string, home: string): string[] | undefined {
  try {
    const commands = commandsOf(pattern.replace(/\s+\*\s*$/, ''), cwd, home);
    const [only] = commands;
    if (commands.length !== 1 || only === undefined || only.args.some((a) => a.dynamic)) return undefined;
    return [only.name, ...only.args.map((a) => a.text)];
  } catch {
    return undefined;
  }
}

function startsWith(command: Command, words: string[] | undefined): boolean {
  if (words === undefined || command.args.some((a) => a.dynamic) || command.via.length > 0) return false;
  const actual = [command.name, ...command.args.map((a) => a.text)];
  return words.length <= actual.length && words.every((w, i) => actual[i] === w);
}
