/**
 * The scripted agent's tools: writing and editing files inside its worktree, and running commands
 * there, reported as tool events the way a real agent's are.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { AgentEvent, ToolKind } from '../types.js';

const MAX_OUTPUT = 8_000;

export interface ToolContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  emit: (event: AgentEvent) => void;
  toolId(): string;
}

/** The scripted agent borrows Claude Code's tool names, so its transcripts read like a real agent's. */
export const WRITE_TOOL = 'Write';
export const EDIT_TOOL = 'Edit';
export const SHELL_TOOL = 'Bash';

const TOOL_KINDS: Record<string, ToolKind> = { [WRITE_TOOL]: 'edit', [EDIT_TOOL]: 'edit', [SHELL_TOOL]: 'run', Read: 'read' };

/** A script's `approve` step may name any tool; names it does not know are 'other'. */
export function toolKind(tool: string): ToolKind {
  return Object.hasOwn(TOOL_KINDS, tool) ? (TOOL_KINDS[tool] ?? 'other') : 'other';
}

export function writeFile(ctx: ToolContext, path: string, content: string): void {
  const toolId = ctx.toolId();
  ctx.emit({ type: 'tool.started', toolId, tool: WRITE_TOOL, kind: 'edit', input: path, files: [path] });
  const target = insideWorktree(ctx.cwd, path);
  if (target === undefined) {
    ctx.emit({ type: 'tool.finished', toolId, tool: WRITE_TOOL, ok: false, output: `refused: ${path} is outside the worktree` });
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  ctx.emit({ type: 'tool.finished', toolId, tool: WRITE_TOOL, ok: true, files: [path] });
}

export function editFile(ctx: ToolContext, path: string, oldText: string, newText: string): void {
  const toolId = ctx.toolId();
  ctx.emit({ type: 'tool.started', toolId, tool: EDIT_TOOL, kind: 'edit', input: path, files: [path] });
  const target = insideWorktree(ctx.cwd, path);
  const current = target !== undefined && existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  if (target === undefined || current === undefined || !current.includes(oldText)) {
    const why = target === undefined ? 'outside the worktree' : current === undefined ? 'no such file' : 'old text not found';
    ctx.emit({ type: 'tool.finished', toolId, tool: EDIT_TOOL, ok: false, output: `${path}: ${why}` });
    return;
  }
  writeFileSync(target, current.replace(oldText, newText));
  ctx.emit({ type: 'tool.finished', toolId, tool: EDIT_TOOL, ok: true, files: [path] });
}

function insideWorktree(cwd: string, path: string): string | undefined {
  const target = resolve(cwd, path);
  const rel = relative(cwd, target);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? undefined : target;
}

/**
 * Runs a command the way an agent's shell tool does: a string goes to `sh -c`, an array runs
 * directly. `onChild` hears of the process while it runs, so an interrupt can end it.
 */
export function runCommand(ctx: ToolContext, tool: string, command: string | string[], onChild: (child: ChildProcess | undefined) => void): Promise<void> {
  const toolId = ctx.toolId();
  const display = typeof command === 'string' ? command : command.join(' ');
  ctx.emit({ type: 'tool.started', toolId, tool, kind: toolKind(tool), input: display });
  const [file, args] = typeof command === 'string' ? ['/bin/sh', ['-c', command]] : [command[0] ?? '', command.slice(1)];
  return new Promise((done) => {
    let output = '';
    const child = spawn(file, args, { cwd: ctx.cwd, env: ctx.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    onChild(child);
    const collect = (chunk: Buffer): void => {
      if (output.length < MAX_OUTPUT) output += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const finish = (exitCode: number | null, error?: string): void => {
      onChild(undefined);
      const text = (error ?? output).slice(0, MAX_OUTPUT);
      ctx.emit({
        type: 'tool.finished',
        toolId,
        tool,
        ok: exitCode === 0,
        ...(exitCode === null ? {} : { exitCode }),
        ...(text === '' ? {} : { output: text }),
      });
      done();
    };
    child.on('error', (error) => finish(null, error.message));
    child.on('close', (code, signal) => finish(code, signal === null ? undefined : `${output}killed by ${signal}`));
  });
}

/** Commands run in their own process group so an interrupt ends everything they started. */
export function killGroup(child: ChildProcess | undefined): void {
  if (child?.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
}
