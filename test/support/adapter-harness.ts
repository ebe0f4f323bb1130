/**
 * The shared set-up of adapter-level end-to-end tests: one scripted model server per file, a
 * fresh workspace per run, every run closed after each test, and approvals optionally granted
 * as they come.
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

  beforeAll(async () => {
    server = await startModelServer(setup.scenarios);
  });
  afterAll(async () => {
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
      const ws = options.fresh === false && workspace !== undefined ? workspace : fresh();
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
      runs.push(run);
      return { run, events };
    },
  };
}
