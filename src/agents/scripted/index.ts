/**
 * The scripted agent: deterministic, for the demo and for tests. It runs in the session host,
 * edits files in its worktree and runs commands there like a real agent, and keeps its progress
 * in its state folder so a respawned session resumes where it stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { InvalidInputError } from '../../shared/errors.js';
import type {
  AgentAdapter,
  AgentEvent,
  AgentRun,
  AgentStartOptions,
  ApprovalDecision,
  GateCall,
} from '../types.js';
import { approvalReason, blockedMessage, gateReason, judge, screen } from '../gate.js';
import {
  REPLY_VARIABLE,
  defaultScript,
  fill,
  fillShell,
  latestReply,
  parseScript,
  usageEvent,
  type Script,
  type Step,
} from './script.js';
import { ProgressFile, type Progress } from './progress.js';
import { quoteArgv } from '../../shared/shell-quote.js';
import {
  SHELL_TOOL,
  editFile,
  killGroup,
  runCommand,
  toolKind,
  writeFile,
  type ToolContext,
} from './tools.js';

export const scriptedAgent: AgentAdapter = {
  id: 'scripted',
  validateOptions(options) {
    const unknown = Object.keys(options).filter((k) => k !== 'script');
    if (unknown.length > 0)
      throw new InvalidInputError(`Unknown option(s) for the scripted agent: ${unknown.join(', ')}`);
    return options.script === undefined ? {} : { script: parseScript(options.script) };
  },
  async start(options, emit) {
    const run = new ScriptedRun(options, emit);
    run.begin();
    return run;
  },
};

type Waiter =
  | { kind: 'question'; resolve: (reply: string | undefined) => void }
  | { kind: 'approval'; requestId: string; resolve: (decision: ApprovalDecision | undefined) => void };

class Interrupted extends Error {}

/** A call waiting for the gate or a person; a shell call from an argument list keeps it, to run without a shell. */
type Approval = { tool: string; input: string; reason?: string | undefined; argv?: string[] };

class ScriptedRun implements AgentRun {
  readonly exited: Promise<{ error?: string }>;
  private resolveExited!: (value: { error?: string }) => void;
  private readonly script: Script;
  private readonly progressFile: ProgressFile;
  private progress: Progress;
  private waiter: Waiter | undefined;
  private child: ChildProcess | undefined;
  private sleeper: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private interrupted = false;
  private closed = false;
  private running: Promise<void> = Promise.resolve();
  private readonly pendingReplies: string[] = [];
  private readonly tools: ToolContext;

  constructor(
    private readonly options: AgentStartOptions,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    this.exited = new Promise((r) => (this.resolveExited = r));
    this.tools = {
      cwd: options.cwd,
      env: options.env,
      sandbox: options.sandbox,
      emit,
      toolId: () => this.toolId(),
    };
    this.script =
      options.options.script === undefined
        ? defaultScript(options.prompt)
        : parseScript(options.options.script);
    this.progressFile = new ProgressFile(options.stateDir);
    this.progress = this.progressFile.load(options.resumeId !== undefined);
  }

  begin(): void {
    this.emit({ type: 'agent.identified', agentSessionId: `scripted-${this.options.sessionId}` });
    if (this.progress.turnDone) {
      // Resumed after the last turn had finished: report that and wait for the next reply.
      this.runTurn(
        [{ say: 'Resumed. The previous turn had finished; waiting for your reply.' }],
        undefined,
        false,
      );
      return;
    }
    const steps = this.progress.turn === 0 ? this.script.steps : this.replySteps();
    const prompt =
      this.progress.turn === 0 ? this.options.prompt : this.progress.replies[this.progress.turn - 1];
    this.runTurn(steps, prompt, true);
  }

  async reply(text: string): Promise<void> {
    if (this.waiter?.kind === 'question') {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve(text);
      return;
    }
    this.pendingReplies.push(text);
    await this.running;
    const next = this.pendingReplies.shift();
    if (next === undefined || this.closed) return;
    this.progress = {
      step: 0,
      turn: this.progress.turn + 1,
      replies: [...this.progress.replies, next],
      turnDone: false,
    };
    this.save();
    this.runTurn(this.replySteps(), next, true);
  }

  async resolveApproval(requestId: string, decision: ApprovalDecision): Promise<void> {
    if (this.waiter?.kind !== 'approval' || this.waiter.requestId !== requestId) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter.resolve(decision);
  }

  async interrupt(): Promise<void> {
    this.interrupted = true;
    killGroup(this.child, this.tools.sandbox);
    if (this.sleeper) {
      clearTimeout(this.sleeper.timer);
      this.sleeper.resolve();
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(undefined);
    await this.running;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.interrupt();
    this.closed = true;
    this.progressFile.close();
    this.resolveExited({});
  }

  private replySteps(): Step[] {
    return this.script.onReply ?? [{ say: 'Noted: {{reply}}' }];
  }

  private runTurn(steps: Step[], prompt: string | undefined, persist: boolean): void {
    this.interrupted = false;
    this.running = this.executeTurn(steps, prompt, persist).catch((error: unknown) => {
      this.emit({
        type: 'error.raised',
        message: `scripted agent crashed: ${(error as Error).message}`,
        fatal: true,
      });
      this.resolveExited({ error: (error as Error).message });
    });
  }

  private async executeTurn(steps: Step[], prompt: string | undefined, persist: boolean): Promise<void> {
    this.emit({ type: 'turn.started', ...(prompt === undefined ? {} : { prompt }) });
    try {
      for (let i = persist ? this.progress.step : 0; i < steps.length; i++) {
        if (this.interrupted) throw new Interrupted();
        const step = steps[i];
        if (step === undefined) break;
        const failure = await this.execute(step);
        if (this.interrupted) throw new Interrupted();
        if (persist) {
          this.progress.step = i + 1;
          this.save();
        }
        if (failure !== undefined) {
          this.finishTurn(persist);
          this.emit(
            typeof failure === 'string'
              ? { type: 'turn.completed', outcome: 'error', error: failure }
              : { type: 'turn.completed', outcome: 'error', ...failure },
          );
          return;
        }
      }
      this.finishTurn(persist);
      this.emit({ type: 'turn.completed', outcome: 'success' });
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      this.emit({ type: 'turn.completed', outcome: 'interrupted' });
    }
  }

  private finishTurn(persist: boolean): void {
    if (!persist) return;
    this.progress.turnDone = true;
    this.save();
  }

  /** Runs one step; returns a failure message (or a usage limit) when the step ends the turn in error. */
  private async execute(
    step: Step,
  ): Promise<string | { error: string; limit: { window?: string; resetsAt?: string } } | undefined> {
    const replies = this.progress.replies;
    if ('say' in step) this.emit({ type: 'message.added', role: 'assistant', text: fill(step.say, replies) });
    else if ('think' in step) this.emit({ type: 'thinking.added', text: fill(step.think, replies) });
    else if ('write' in step) writeFile(this.tools, step.write.path, fill(step.write.content, replies));
    else if ('edit' in step)
      editFile(this.tools, step.edit.path, step.edit.old, fill(step.edit.new, replies));
    else if ('run' in step)
      await this.runGated(
        typeof step.run === 'string' ? fillShell(step.run) : step.run.map((a) => fill(a, replies)),
      );
    else if ('require' in step)
      return this.require(
        typeof step.require === 'string'
          ? fillShell(step.require)
          : step.require.map((a) => fill(a, replies)),
      );
    else if ('ask' in step) await this.ask(fill(step.ask, replies));
    else if ('approve' in step) {
      // A shell command is shown as it will run: the reply goes in as a variable, not as shell text.
      const input =
        step.approve.tool === SHELL_TOOL ? fillShell(step.approve.input) : fill(step.approve.input, replies);
      await this.askApproval({ ...step.approve, input });
    } else if ('sleep' in step) await this.sleep(step.sleep);
    else if ('usage' in step) this.emit(usageEvent(step.usage));
    else if ('windows' in step) this.emit({ type: 'limits.reported', windows: step.windows });
    else if ('limit' in step) {
      const { message, window, resetsAt } = step.limit;
      this.emit({ type: 'error.raised', message, fatal: false });
      return {
        error: message,
        limit: {
          ...(window === undefined ? {} : { window }),
          ...(resetsAt === undefined ? {} : { resetsAt }),
        },
      };
    } else {
      const message = fill(step.fail, replies);
      this.emit({ type: 'error.raised', message, fatal: false });
      return message;
    }
    return undefined;
  }

  /** An array runs without a shell, each reply a plain argument; a string gets the reply as $BATON_REPLY. */
  private runCommand(command: string | string[]): Promise<number | null> {
    const tools = {
      ...this.tools,
      env: { ...this.tools.env, [REPLY_VARIABLE]: latestReply(this.progress.replies) },
    };
    return runCommand(tools, SHELL_TOOL, command, (child) => (this.child = child));
  }

  private ask(question: string): Promise<void> {
    this.emit({ type: 'message.added', role: 'assistant', text: question });
    this.emit({ type: 'question.asked', text: question });
    return new Promise((done, fail) => {
      this.waiter = {
        kind: 'question',
        resolve: (reply) => {
          // Saving can fail (a full disk): the turn then fails with the reason instead of waiting for ever.
          try {
            if (reply !== undefined) {
              this.progress.replies = [...this.progress.replies, reply];
              this.save();
            }
            done();
          } catch (error) {
            fail(error instanceof Error ? error : new Error(String(error)));
          }
        },
      };
    });
  }

  /** A command the turn depends on: judged by the gate like any run (it cannot wait for an approval), its failure ends the turn. */
  private async require(command: string | string[]): Promise<string | undefined> {
    const line = typeof command === 'string' ? command : quoteArgv(command);
    const verdict = screen(
      this.options.gate,
      { tool: SHELL_TOOL, kind: 'run', command: line },
      line,
      this.emit,
    );
    const exitCode = verdict.action === 'allow' ? await this.runCommand(command) : undefined;
    if (exitCode === 0 || this.interrupted) return undefined;
    const message =
      exitCode === undefined
        ? `required command not run: ${verdict.action === 'block' ? blockedMessage(verdict) : gateReason(verdict)}: ${line}`
        : `required command failed (exit ${exitCode ?? 'by signal'}): ${line}`;
    this.emit({ type: 'error.raised', message, fatal: false });
    return message;
  }

  /** A command the script runs unasked, as an agent's auto-run: the gate still sees it (an argument list as the command line that runs the same words). */
  private async runGated(command: string | string[]): Promise<void> {
    const line = typeof command === 'string' ? command : quoteArgv(command);
    if (judge(this.options.gate, { tool: SHELL_TOOL, kind: 'run', command: line }).action === 'allow') {
      await this.runCommand(command);
      return;
    }
    return this.askApproval({
      tool: SHELL_TOOL,
      input: line,
      ...(typeof command === 'string' ? {} : { argv: command }),
    });
  }

  private askApproval(request: Approval): Promise<void> {
    const kind = toolKind(request.tool);
    const call: GateCall = {
      tool: request.tool,
      kind,
      ...(request.tool === SHELL_TOOL
        ? { command: request.input }
        : kind === 'edit'
          ? { paths: [request.input] }
          : {}),
    };
    const verdict = screen(this.options.gate, call, request.input, this.emit);
    if (verdict.action === 'block') {
      this.emit({
        type: 'message.added',
        role: 'assistant',
        text: `I did not run it: ${blockedMessage(verdict)}`,
      });
      return Promise.resolve();
    }
    // As the real agents do: bypassPermissions asks nothing; acceptEdits lets file edits through — unless the gate asks.
    const mode = this.options.permissionMode;
    if (
      verdict.action === 'allow' &&
      (mode === 'bypassPermissions' || (mode === 'acceptEdits' && kind === 'edit'))
    )
      return this.runApproved(request);
    const requestId = this.toolId();
    this.emit({
      type: 'approval.requested',
      requestId,
      tool: request.tool,
      kind,
      input: request.input,
      ...approvalReason(verdict, request.reason),
    });
    return new Promise((done) => {
      this.waiter = {
        kind: 'approval',
        requestId,
        resolve: (decision) => {
          if (decision === undefined) return done();
          if (decision.decision === 'deny') {
            const why = decision.reason ? `: ${decision.reason}` : '';
            this.emit({
              type: 'message.added',
              role: 'assistant',
              text: `Understood, I will not run ${request.tool}${why}.`,
            });
            return done();
          }
          this.runApproved(request).then(done, done);
        },
      };
    });
  }

  private async runApproved(request: Approval): Promise<void> {
    if (request.tool === SHELL_TOOL) {
      await this.runCommand(request.argv ?? request.input);
      return;
    }
    const toolId = this.toolId();
    this.emit({
      type: 'tool.started',
      toolId,
      tool: request.tool,
      kind: toolKind(request.tool),
      input: request.input,
    });
    this.emit({ type: 'tool.finished', toolId, tool: request.tool, ok: true });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((done) => {
      const timer = setTimeout(() => ((this.sleeper = undefined), done()), ms);
      this.sleeper = { timer, resolve: done };
    });
  }

  private toolSeq = 0;
  private toolId(): string {
    this.toolSeq++;
    return `t${this.progress.turn}-${this.progress.step}-${this.toolSeq}`;
  }

  /** Progress is saved after every step, so a respawn resumes there (progress.ts says how). */
  private save(): void {
    this.progressFile.save(this.progress);
  }
}
