/**
 * The shared set-up of adapter-level end-to-end tests: one scripted model server per file, a
 * fresh workspace per run, every run closed after each test, and approvals optionally granted
 * as they come. `turn` instead keeps one conversation, and so one agent process, across tests.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AgentAdapter, AgentEvent, AgentRun, PermissionMode, ToolGate } from '../../src/agents/types.js';
import {
  createWorkspace,
  startModelServer,
  type ModelServer,
  type Scenario,
  type Workspace,
} from './model-server/index.js';
import { EventRecorder, within } from './wait.js';

export interface StartOptions {
  permissionMode?: PermissionMode;
  resumeId?: string;
  autoApprove?: boolean;
  /** Another executable than the default (e.g. a wrapper that corrupts output). */
  executable?: string;
  /** false: reuse the previous run's workspace (for resume). */
  fresh?: boolean;
  /** Run in this workspace (the kept conversation's, to resume it in a new process). */
  workspace?: Workspace;
  settingSources?: readonly string[];
  instructions?: string;
  /** The destructive-action gate, built for the run's workspace (src/policy). */
  gate?: (workspace: Workspace) => ToolGate;
}

export interface AdapterHarness<R extends AgentRun> {
  readonly server: ModelServer;
  readonly workspace: Workspace;
  /** A fresh workspace now, for tests that prepare it before `start(…, { fresh: false })`. */
  newWorkspace(): Workspace;
  start(prompt: string, options?: StartOptions): Promise<{ run: R; events: EventRecorder<AgentEvent> }>;
  /**
   * The next turn of one conversation kept open across the tests of a file, in one agent process
   * (decision 434, "A real agent's cases share its process where they need no fresh one"): the first
   * call starts it with `prompt` in a workspace of its own, each later call sends `prompt` as a
   * reply. `from` is the index of this turn's first event. A conversation that is not at rest
   * when a turn is asked for (its test failed with a turn open, or its agent exited) is closed,
   * and a new one starts, so one failure does not fail the tests after it.
   */
  turn(prompt: string): Promise<KeptTurn<R>>;
}

export interface KeptTurn<R extends AgentRun> {
  run: R;
  events: EventRecorder<AgentEvent>;
  from: number;
  workspace: Workspace;
}

export function adapterHarness<R extends AgentRun>(setup: {
  adapter: AgentAdapter;
  scenarios: Scenario[];
  /** The adapter option that names the executable, and its default. */
  executableOption: string;
  defaultExecutable: () => string;
  env: (url: string, home: string) => NodeJS.ProcessEnv;
}): AdapterHarness<R> {
  let server: ModelServer | undefined;
  let workspace: Workspace | undefined;
  const workspaces: Workspace[] = [];
  const runs: R[] = [];
  const fresh = (): Workspace => {
    workspace = createWorkspace(`baton-${setup.adapter.id}-`);
    workspaces.push(workspace);
    return workspace;
  };
  const name = setup.adapter.id;

  let kept: (Omit<KeptTurn<R>, 'from'> & { gone: boolean }) | undefined;
  const endKept = async (): Promise<void> => {
    const ending = kept;
    kept = undefined;
    if (ending === undefined) return;
    await within(ending.run.close(), 15_000, `${name} close`);
    ending.workspace.remove();
  };

  beforeAll(async () => {
    server = await startModelServer(setup.scenarios);
  });
  afterAll(async () => {
    await endKept();
    await server?.close();
  });
  afterEach(async () => {
    await Promise.all(runs.splice(0).map((run) => within(run.close(), 15_000, `${name} close`)));
    // Only after every run is closed: a run may still be working in an earlier workspace.
    for (const ws of workspaces.splice(0)) ws.remove();
    workspace = undefined;
    // A prompt no scenario matches is answered "OK." so the CLI carries on; the test fails here.
    server?.assertClean();
  });

  const must = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not set up yet`);
    return value;
  };

  return {
    get server() {
      return must(server, 'the model server');
    },
    get workspace() {
      return must(workspace, 'the workspace');
    },
    newWorkspace: fresh,
    async start(prompt, options = {}) {
      const ws =
        options.workspace ?? (options.fresh === false && workspace !== undefined ? workspace : fresh());
      const started = await launch(prompt, ws, options);
      runs.push(started.run);
      return started;
    },
    async turn(prompt) {
      if (kept !== undefined && (kept.gone || !atRest(kept.events.events))) await endKept();
      if (kept === undefined) {
        const ws = createWorkspace(`baton-${setup.adapter.id}-`);
        const { run, events } = await launch(prompt, ws, {});
        const entry = { run, events, workspace: ws, gone: false };
        void run.exited.then(() => (entry.gone = true));
        kept = entry;
        return { run, events, workspace: ws, from: 0 };
      }
      const from = kept.events.events.length;
      await kept.run.reply(prompt);
      return { run: kept.run, events: kept.events, workspace: kept.workspace, from };
    },
  };

  async function launch(
    prompt: string,
    ws: Workspace,
    options: StartOptions,
  ): Promise<{ run: R; events: EventRecorder<AgentEvent> }> {
    const events = new EventRecorder<AgentEvent>();
    const holder: { run?: R } = {};
    const emit = (event: AgentEvent): void => {
      events.emit(event);
      if (options.autoApprove === true && event.type === 'approval.requested') {
        void holder.run?.resolveApproval(event.requestId, { decision: 'allow' });
      }
    };
    const run = (await setup.adapter.start(
      {
        sessionId: 'test',
        cwd: ws.repo,
        prompt,
        permissionMode: options.permissionMode ?? 'default',
        resumeId: options.resumeId,
        stateDir: ws.stateDir,
        options: { [setup.executableOption]: options.executable ?? setup.defaultExecutable() },
        env: setup.env(must(server, 'the model server').url, ws.home),
        settingSources: options.settingSources,
        instructions: options.instructions,
        gate: options.gate?.(ws),
      },
      emit,
    )) as R;
    holder.run = run;
    return { run, events };
  }
}

/** Whether every turn started has ended: the conversation waits for its next prompt. */
function atRest(events: readonly AgentEvent[]): boolean {
  const started = events.filter((e) => e.type === 'turn.started').length;
  return started > 0 && started === events.filter((e) => e.type === 'turn.completed').length;
}
