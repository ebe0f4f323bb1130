/**
 * Baton's own check of a turn's work (decision 253): where `.baton/config.json` says
 * `"verify": {"run": "turn"}` and the repository's commands are trusted, the check runs on the
 * worktree after each turn that changed it, in the session's sandbox, and its evidence is kept
 * for the session's view and for a merge to reuse (decision 291); the test files the work adds
 * or changes are also run against the base, and those already passing there are flagged
 * (red-green, decision 292).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceBus } from '../bus/index.js';
import { ProvenanceRedGreen, ProvenanceVerified } from '../events/workspace.js';
import { DEFAULT_CHECK_SECONDS, loadRepoConfig, trustState } from '../projects/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { EvidenceStore } from '../store/evidence.js';
import type { SessionWithProject } from '../store/sessions.js';
import { gitOut } from '../worktrees/index.js';
import { readTestCounts, type Evidence, type RunCheck } from './evidence.js';
import { changedTests, runRedGreen, type RedGreen } from './red-green.js';
import type { TurnRecord } from './record.js';

const log = createLogger('provenance');

/**
 * The merge queue's runner, Baton's state folder (for trust) and the environment checks run in
 * (ProvenanceOptions.verify).
 */
export interface VerifyOptions {
  run: RunCheck;
  home: string;
  env: NodeJS.ProcessEnv;
  /**
   * The command and environment to run a session's check with inside that session's sandbox.
   * The command is trusted, but what it runs (a package.json script, a test file, a Makefile)
   * is the agent's work: outside the sandbox it would run as the user, with the state folder
   * and the token in reach, after every turn (decision 271).
   */
  confine?: (
    session: SessionWithProject,
    command: string | readonly string[],
    env: NodeJS.ProcessEnv,
  ) => { command: readonly string[]; env: NodeJS.ProcessEnv; shown: string };
}

export class TurnVerifier {
  constructor(
    private readonly options: {
      verify: VerifyOptions | undefined;
      store: EvidenceStore;
      bus: WorkspaceBus;
      now: () => Date;
    },
  ) {}

  /** Runs the repository's verify command on the work of a turn that changed it, where configured and trusted. */
  async check(session: SessionWithProject, record: TurnRecord, tree: string): Promise<void> {
    const verify = this.options.verify;
    if (verify === undefined) return;
    const root = session.project_root;
    // The user's checkout's config, not the worktree's: an agent cannot turn a check on or change it.
    const config = loadRepoConfig(root);
    if (config.verify?.run !== 'turn') return;
    const command = config.verify.command ?? config.merge?.check;
    if (command === undefined) return;
    if (!trustState(verify.home, root, config).trusted) {
      log.info("verify not run: the repository's commands are not trusted", { session: session.name });
      return;
    }
    if (!existsSync(session.worktree)) return;
    const env = { ...verify.env, BATON_VERIFY: '1' };
    // Listed before the run (what the run itself makes would be made in a merge's checkout too).
    const outsideTree = await ignoredFiles(session.worktree);
    const confined = verify.confine?.(session, command, env);
    const result = await verify.run(confined?.command ?? command, {
      cwd: session.worktree,
      timeoutSeconds: config.verify.timeoutSeconds ?? DEFAULT_CHECK_SECONDS,
      env: confined?.env ?? env,
    });
    const evidence: Evidence = {
      sessionId: session.id,
      name: session.name,
      turn: record.turn,
      tree,
      // The repository's command as the user wrote it, not the sandbox's wrapping of it.
      command: confined?.shown ?? result.command,
      outcome: result.outcome,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      outputTail: result.outputTail,
      tests: readTestCounts(result.outputTail),
      at: this.options.now().toISOString(),
      ...(outsideTree.length > 0 ? { outsideTree } : {}),
    };
    this.options.store.verified(session.id, tree, evidence);
    this.options.bus.publish(ProvenanceVerified, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      turn: evidence.turn,
      tree,
      command: evidence.command,
      outcome: evidence.outcome,
      exitCode: evidence.exitCode,
      durationMs: evidence.durationMs,
      outputTail: evidence.outputTail,
      tests: evidence.tests,
    });
    if (config.verify.tests !== undefined)
      await this.redGreen(session, record, tree, config.verify.tests, config.verify.timeoutSeconds);
  }

  /**
   * Runs the test files this session's work adds or changes against its base (its test files laid
   * on the base's tree) and on its work, and flags those passing on the base (decision 292).
   */
  private async redGreen(
    session: SessionWithProject,
    record: TurnRecord,
    tree: string,
    template: string | readonly string[],
    timeoutSeconds: number | undefined,
  ): Promise<void> {
    const verify = this.options.verify!;
    const files = await changedTests(session.project_root, session.base_commit, tree);
    if (files.length === 0) return;
    const env = { ...verify.env, BATON_VERIFY: '1' };
    const outcome = await runRedGreen({
      root: session.project_root,
      base: session.base_commit,
      tree,
      files,
      scratch: join(verify.home, 'red-green', session.id),
      template,
      timeoutSeconds: timeoutSeconds ?? DEFAULT_CHECK_SECONDS,
      run: async (command, cwd, seconds) => {
        // In the session's sandbox with the scratch folder as its work: the tests are the agent's.
        const confined = verify.confine?.({ ...session, worktree: cwd }, command, env);
        return verify.run(confined?.command ?? command, {
          cwd,
          timeoutSeconds: seconds,
          env: confined?.env ?? env,
        });
      },
    });
    const result: RedGreen = {
      sessionId: session.id,
      name: session.name,
      turn: record.turn,
      tree,
      base: session.base_commit,
      command: typeof template === 'string' ? template : template.join(' '),
      ...outcome,
      at: this.options.now().toISOString(),
    };
    this.options.store.redGreen(session.id, result);
    this.options.bus.publish(ProvenanceRedGreen, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      turn: record.turn,
      tree,
      tests: result.tests.map((t) => ({ file: t.file, base: t.base, branch: t.branch, vacuous: t.vacuous })),
      durationMs: result.durationMs,
    });
  }
}

/** Most ignored paths kept with a check's evidence: enough to name them, not a listing of node_modules. */
const OUTSIDE_TREE_SHOWN = 10;

/**
 * The ignored files and folders in a worktree (a folder wholly ignored as one entry). The turn's
 * tree leaves them out, yet a check run in the worktree sees them: a hostile agent's ignored helper
 * made the check pass on a tree that fails alone, and the merge reused that pass. A listing that
 * fails counts as something there: a pass is then not reused.
 */
async function ignoredFiles(worktree: string): Promise<string[]> {
  try {
    const out = await gitOut(worktree, [
      'ls-files',
      '--others',
      '--ignored',
      '--exclude-standard',
      '--directory',
      '-z',
    ]);
    return out
      .split('\0')
      .filter((p) => p !== '')
      .slice(0, OUTSIDE_TREE_SHOWN);
  } catch (error) {
    return [`(the worktree's ignored files could not be listed: ${errorMessage(error)})`];
  }
}
