/**
 * The scripted agent's tools: writing and editing files inside its worktree, and running commands
 * there, reported as tool events the way a real agent's are.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { quoteArgv } from '../../shared/shell-quote.js';
import { clipOutput, OutputClip } from '../output.js';
import { NO_SANDBOX, type CommandSandbox } from '../../sandbox/index.js';
import type { AgentEvent, ToolKind } from '../types.js';

export interface ToolContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A command runs in the session's sandbox, as a real agent's shell tool does. */
  sandbox?: CommandSandbox | undefined;
  emit: (event: AgentEvent) => void;
  toolId(): string;
}

/** The scripted agent borrows Claude Code's tool names, so its transcripts read like a real agent's. */
export const WRITE_TOOL = 'Write';
export const EDIT_TOOL = 'Edit';
export const SHELL_TOOL = 'Bash';

const TOOL_KINDS: Record<string, ToolKind> = {
  [WRITE_TOOL]: 'edit',
  [EDIT_TOOL]: 'edit',
  [SHELL_TOOL]: 'run',
  Read: 'read',
};

/** A script's `approve` step may name any tool; names it does not know are 'other'. */
export function toolKind(tool: string): ToolKind {
  return Object.hasOwn(TOOL_KINDS, tool) ? (TOOL_KINDS[tool] ?? 'other') : 'other';
}

export function writeFile(ctx: ToolContext, path: string, content: string): void {
  const toolId = ctx.toolId();
  ctx.emit({ type: 'tool.started', toolId, tool: WRITE_TOOL, kind: 'edit', input: path, files: [path] });
  const target = fileTarget(ctx.cwd, path);
  if ('refused' in target) {
    ctx.emit({ type: 'tool.finished', toolId, tool: WRITE_TOOL, ok: false, output: target.refused });
    return;
  }
  try {
    mkdirSync(dirname(target.path), { recursive: true });
    writeFileSync(target.path, content);
  } catch (error) {
    // A file where a folder should be, a folder where the file should be, no permission: the
    // tool fails, as a real agent's would, and the agent goes on.
    ctx.emit({
      type: 'tool.finished',
      toolId,
      tool: WRITE_TOOL,
      ok: false,
      output: `${path}: ${(error as Error).message}`,
    });
    return;
  }
  ctx.emit({ type: 'tool.finished', toolId, tool: WRITE_TOOL, ok: true, files: [path] });
}

export function editFile(ctx: ToolContext, path: string, oldText: string, newText: string): void {
  const toolId = ctx.toolId();
  ctx.emit({ type: 'tool.started', toolId, tool: EDIT_TOOL, kind: 'edit', input: path, files: [path] });
  const fail = (output: string): void =>
    ctx.emit({ type: 'tool.finished', toolId, tool: EDIT_TOOL, ok: false, output });
  const target = fileTarget(ctx.cwd, path);
  if ('refused' in target) return fail(target.refused);
  const current = readText(target.path);
  if (current === undefined) return fail(`${path}: no such file`);
  if (!current.includes(oldText)) return fail(`${path}: old text not found`);
  try {
    writeFileSync(target.path, current.replace(oldText, newText));
  } catch (error) {
    return fail(`${path}: ${(error as Error).message}`);
  }
  ctx.emit({ type: 'tool.finished', toolId, tool: EDIT_TOOL, ok: true, files: [path] });
}

/**
 * Where a file tool may write `path`: inside the worktree, and not in `.git` (a file in a
 * worktree, a folder in a repository), which holds git's state, not the agent's work.
 */
function fileTarget(cwd: string, path: string): { path: string } | { refused: string } {
  const target = resolve(cwd, path);
  const rel = relative(cwd, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    return { refused: `refused: ${path} is outside the worktree` };
  if (rel.split(sep)[0] === '.git')
    return { refused: `refused: ${path} is inside .git, which is git's, not the agent's` };
  return { path: target };
}

/** A file's text; undefined when there is no such file (or a folder is there). */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Runs a command the way an agent's shell tool does: a string goes to `sh -c`, an array runs
 * directly. `onChild` hears of the process while it runs, so an interrupt can end it.
 */
export function runCommand(
  ctx: ToolContext,
  tool: string,
  command: string | string[],
  onChild: (child: ChildProcess | undefined) => void,
): Promise<number | null> {
  const toolId = ctx.toolId();
  const display = typeof command === 'string' ? command : quoteArgv(command);
  ctx.emit({ type: 'tool.started', toolId, tool, kind: toolKind(tool), input: display });
  const [plainFile, plainArgs] =
    typeof command === 'string' ? ['/bin/sh', ['-c', command]] : [command[0] ?? '', command.slice(1)];
  const { command: file, args } = ctx.sandbox?.wrap(plainFile, plainArgs) ?? {
    command: plainFile,
    args: plainArgs,
  };
  return new Promise((done) => {
    const output = new OutputClip();
    const child = spawn(file, args, {
      cwd: ctx.cwd,
      env: ctx.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    onChild(child);
    const collect = (chunk: Buffer): void => output.add(chunk.toString('utf8'));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const finish = (exitCode: number | null, error?: string): void => {
      onChild(undefined);
      const text = clipOutput(error ?? output.toString());
      ctx.emit({
        type: 'tool.finished',
        toolId,
        tool,
        ok: exitCode === 0,
        ...(exitCode === null ? {} : { exitCode }),
        ...(text === '' ? {} : { output: text }),
      });
      done(exitCode);
    };
    child.on('error', (error) => finish(null, error.message));
    child.on('close', (code, signal) => {
      // Added to the clip, so its count of characters left out stays true.
      if (signal !== null) output.add(`killed by ${signal}`);
      finish(code);
    });
  });
}

/** Commands run in their own process group so an interrupt ends everything they started. */
export function killGroup(child: ChildProcess | undefined, sandbox: CommandSandbox = NO_SANDBOX): void {
  if (child?.pid === undefined || child.exitCode !== null) return;
  if (!sandbox.signalGroup(child.pid, 'SIGTERM')) child.kill('SIGTERM');
}
