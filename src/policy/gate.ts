/**
 * The gate: one verdict for one tool call. A command is parsed as shell, its wrappers peeled
 * and its inline scripts scanned (unwrap.ts, inline.ts), and every program that would run goes
 * past every rule. The strongest finding decides: `block`, or `ask` (the call becomes an
 * approval). A rule that cannot be sure — a path in a variable, a script only known at run time,
 * a command that does not parse — asks; it never allows silently and never blocks on a guess.
 */
import { basename } from 'node:path';
import { OPAQUE } from './opaque.js';
import type { PolicySection } from '../projects/index.js';
import { inlineCommands } from './inline.js';
import { isDisk, placeOf } from './paths.js';
import { DATA_RULES } from './rules-data.js';
import { DISK, FILE_RULES, operandsOf, WRITE_OUTSIDE, writeTargets } from './rules-files.js';
import { noteWrites, scriptCommands, type Written } from './scripts.js';
import { GIT_RULES, switchTarget } from './rules-git.js';
import { SHARED_GIT_RULES } from './rules-git-shared.js';
import { GIT_CONFIG_RULES } from './rules-git-config.js';
import { joinPath, UNKNOWN } from './shell.js';
import type {
  CommandRule,
  Finding,
  GateContext,
  RuleAction,
  RuleContext,
  ToolCall,
  Verdict,
} from './types.js';
import { commandsOf, type Command } from './unwrap.js';

export const UNPARSEABLE = 'unparseable';
const BUILT_IN: CommandRule[] = [
  ...FILE_RULES,
  ...GIT_RULES,
  ...SHARED_GIT_RULES,
  ...GIT_CONFIG_RULES,
  ...DATA_RULES,
  OPAQUE,
];

/** The rules in force: the built-in ones with the repository's actions, then its own. */
export interface Policy {
  rules: CommandRule[];
  writable: string[];
}

/** Folders outside a worktree where temporary files go. */
export const DEFAULT_WRITABLE = ['/tmp', '/var/tmp'];

export function compilePolicy(section: PolicySection = {}, tmpdir?: string): Policy {
  const actions: Record<string, RuleAction | undefined> = section.rules ?? {};
  const builtIn = BUILT_IN.flatMap((rule) => {
    const action = actions[rule.id] ?? rule.action;
    return action === 'off' ? [] : [{ ...rule, action }];
  });
  const custom = (section.custom ?? []).map((rule): CommandRule => ({
    id: rule.id,
    title: rule.why,
    action: rule.action,
    suggest: rule.suggest,
    check: (command) =>
      command.name === rule.command &&
      (rule.args ?? []).every((arg) => command.args.some((a) => a.text === arg))
        ? { rule: rule.id, why: rule.why }
        : undefined,
  }));
  const writable = section.writable ?? [
    ...DEFAULT_WRITABLE,
    ...(tmpdir === undefined || DEFAULT_WRITABLE.includes(tmpdir) ? [] : [tmpdir]),
  ];
  return { rules: [...builtIn, ...custom], writable };
}

/** Every rule the gate knows, with its action in this policy (`off` when turned off). */
export function describeRules(
  section: PolicySection = {},
): { id: string; title: string; action: RuleAction; suggest?: string | undefined; custom: boolean }[] {
  const actions: Record<string, RuleAction | undefined> = section.rules ?? {};
  return [
    ...BUILT_IN.map((rule) => ({
      id: rule.id,
      title: rule.title,
      action: actions[rule.id] ?? rule.action,
      suggest: rule.suggest,
      custom: false,
    })),
    ...(section.custom ?? []).map((rule) => ({
      id: rule.id,
      title: rule.why,
      action: rule.action,
      suggest: rule.suggest,
      custom: true,
    })),
  ];
}

export function evaluate(call: ToolCall, context: GateContext, policy: Policy): Verdict {
  const ctx: RuleContext = { ...context, writable: policy.writable };
  if (call.kind === 'edit' && call.paths !== undefined)
    return decide(
      policy,
      editFindings(call.paths, ctx),
      call.paths.map((p) => `${call.tool} ${p}`),
    );
  if (call.command === undefined) return decide(policy, [], []);
  let commands: Command[];
  const fromScripts: Finding[] = [];
  try {
    commands = expand(commandsOf(call.command, ctx.cwd, ctx.home), ctx, fromScripts);
  } catch (error) {
    const why = `the command could not be read as shell (${(error as Error).message}), so the gate cannot tell what it does`;
    return {
      action: 'ask',
      rule: UNPARSEABLE,
      why,
      uncertain: true,
      findings: [{ rule: UNPARSEABLE, why, uncertain: true, action: 'ask' }],
      parsed: [],
    };
  }
  const findings: Finding[] = [...fromScripts];
  const links = new Map(context.links);
  ctx.links = links;
  for (const command of commands) {
    for (const rule of policy.rules) {
      const found = rule.check(command, ctx);
      if (found !== undefined) findings.push(found);
    }
    const target = switchTarget(command, ctx);
    if (target !== undefined) ctx.switchedTo = target;
    noteLink(command, links);
  }
  return decide(policy, findings, commands.map(render));
}

/**
 * The commands as they run: each followed by what its inline script runs (`python -c`) and by
 * the commands of a script file it runs (scripts.ts), in turn read the same way. Files written
 * earlier in the call are remembered, so `cat > x.sh <<EOF … EOF; sh x.sh` is judged by its text.
 */
function expand(commands: Command[], ctx: RuleContext, findings: Finding[], depth = 1): Command[] {
  const out: Command[] = [];
  const written: Written = { files: new Map(), earlier: 0 };
  const visit = (command: Command, level: number): void => {
    out.push(command);
    for (const inline of inlineCommands(command, ctx.home, level)) out.push(inline);
    const script = scriptCommands(command, ctx, written, level);
    findings.push(...script.findings);
    for (const inner of script.commands) visit(inner, level + 1);
    noteWrites(command, writeTargets(command), written);
    written.earlier++;
  };
  for (const command of commands) visit(command, depth);
  return out;
}

/**
 * A symbolic link `ln -s TARGET LINK` makes (`-t DIR`, or one operand: in the current folder),
 * so a later command of the call is judged where the link leads (decision 399). A target only
 * known at run time is not recorded: the path through it is judged as written.
 */
function noteLink(command: Command, links: Map<string, string>): void {
  if (command.name !== 'ln' || command.cwd === undefined) return;
  const symbolic = command.args.some((a) => /^-[a-zA-Z]*s/.test(a.text) || a.text === '--symbolic');
  if (!symbolic) return;
  const texts = command.args.map((a) => a.text);
  const dir = texts.findIndex((t) => t === '-t' || t === '--target-directory');
  const operands = operandsOf(command.args).filter((w) => w !== command.args[dir + 1]);
  if (operands.some((w) => w.dynamic) || operands.length === 0) return;
  const folder = dir >= 0 ? command.args[dir + 1]?.text : undefined;
  const targets = folder !== undefined || operands.length === 1 ? operands : operands.slice(0, 1);
  for (const target of targets) {
    const at =
      folder !== undefined
        ? joinPath(joinPath(command.cwd, folder), basename(target.text))
        : operands.length === 1
          ? joinPath(command.cwd, basename(target.text))
          : joinPath(command.cwd, operands[operands.length - 1]?.text ?? '');
    links.set(at, target.text);
  }
}

/** Files an edit tool writes: outside the worktree asks, a device blocks. */
function editFindings(paths: readonly string[], ctx: RuleContext): Finding[] {
  return paths.flatMap((path): Finding[] => {
    const absolute = joinPath(ctx.cwd, path);
    if (isDisk(absolute)) return [{ rule: DISK, why: `writes the device ${absolute}` }];
    const where = placeOf(absolute, false, ctx, true);
    if (where === 'outside' || where === 'user' || where === 'unknown')
      return [{ rule: WRITE_OUTSIDE, why: `writes ${absolute}, outside the worktree` }];
    if (where === 'repository' || where === 'worktree')
      return [{ rule: WRITE_OUTSIDE, why: `writes ${absolute}, the repository's git data` }];
    return [];
  });
}

const STRENGTH = { block: 2, ask: 1 } as const;

function decide(policy: Policy, findings: Finding[], parsed: string[]): Verdict {
  const byId = new Map(policy.rules.map((r) => [r.id, r]));
  const judged = findings
    .filter((f) => byId.has(f.rule))
    .map((f) => ({
      ...f,
      action: f.uncertain === true ? ('ask' as const) : (byId.get(f.rule)?.action ?? 'ask'),
    }))
    .sort((a, b) => STRENGTH[b.action] - STRENGTH[a.action]);
  const top = judged[0];
  if (top === undefined) return { action: 'allow', findings: [], parsed };
  return {
    action: top.action,
    rule: top.rule,
    why: top.why,
    suggest: byId.get(top.rule)?.suggest,
    uncertain: top.uncertain,
    findings: judged,
    parsed,
  };
}

/** A command as the gate read it: `sudo › rm -rf /`. */
export function render(command: Command): string {
  const words = [command.name, ...command.args.map((a) => a.text)].map((w) => w.replaceAll(UNKNOWN, '$…'));
  const text = words.map((w) => (/[\s'"]/.test(w) ? JSON.stringify(w) : w)).join(' ');
  return [...command.via, text].join(' › ');
}
