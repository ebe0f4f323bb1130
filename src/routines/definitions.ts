/**
 * Routine definitions: added from the CLI or read from `.baton/config.json` (the file wins for
 * the names it defines, and a routine removed from it goes), checked whole before anything is
 * stored — the schedule, the template, the prompt file — and found by name, the caller's
 * repository first.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceBus } from '../bus/index.js';
import { RoutineAdded, RoutineChanged, RoutineRemoved } from '../events/workspace.js';
import { loadRepoConfig, RoutineSpec } from '../projects/index.js';
import { BatonError, formatIssues, InvalidInputError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { RoutineStore, RoutineWithProject } from '../store/routines.js';
import type { ProjectRow } from '../store/sessions.js';
import { validateSessionName } from '../sessions/index.js';
import { findRepository } from '../worktrees/index.js';
import type { RoutineClock } from './ports.js';
import { ref } from './runs.js';
import { checkSchedule, nextRun } from './schedule.js';
import { templateNamed } from './templates/index.js';

export class RoutineNotFoundError extends BatonError {
  constructor(name: string, known: string[]) {
    super(
      'not_found',
      `No routine "${name}"${known.length === 0 ? ' (there are none yet: `baton routine add`)' : `; routines: ${known.join(', ')}`}.`,
      { name, known },
    );
  }
}

export interface DefinitionsOptions {
  store: RoutineStore;
  bus: WorkspaceBus;
  clock: RoutineClock;
  projects: { ensure(root: string): ProjectRow; all(): ProjectRow[] };
}

export class RoutineDefinitions {
  constructor(private readonly options: DefinitionsOptions) {}

  /** Adds (or, with `replace`, redefines) a routine of the repository holding `cwd`. */
  async add(input: {
    name: string;
    cwd: string;
    spec: RoutineSpec;
    replace?: boolean | undefined;
  }): Promise<RoutineWithProject> {
    const repo = await findRepository(input.cwd);
    await this.syncConfig(repo.root);
    const project = this.options.projects.ensure(repo.root);
    const existing = this.options.store.byName(project.id, input.name);
    if (existing?.source === 'config')
      throw new InvalidInputError(
        `The routine "${input.name}" is defined in .baton/config.json; change it there.`,
      );
    if (existing !== undefined && input.replace !== true)
      throw new InvalidInputError(
        `A routine "${input.name}" already exists in ${repo.root}; remove it first or add --replace.`,
      );
    return this.upsert(project, input.name, input.spec, 'cli', existing);
  }

  /** Reads the repository's `routines` section into the store; a bad entry is an error naming it. */
  async syncConfig(root: string): Promise<void> {
    const section = loadRepoConfig(root).routines ?? {};
    const project = this.options.projects.ensure(root);
    for (const [name, spec] of Object.entries(section)) {
      const existing = this.options.store.byName(project.id, name);
      if (existing?.source === 'config' && existing.spec_json === JSON.stringify(spec)) continue;
      try {
        this.check(project.root, name, spec);
      } catch (error) {
        throw new InvalidInputError(`.baton/config.json: routines.${name}: ${(error as Error).message}`);
      }
      this.upsert(project, name, spec, 'config', existing);
    }
    for (const routine of this.options.store.all()) {
      if (routine.project_id === project.id && routine.source === 'config' && !(routine.name in section))
        this.remove(routine);
    }
  }

  /** Every known repository's config, read again; a broken one is reported, not fatal to the others. */
  async syncAll(onError: (root: string, error: unknown) => void): Promise<void> {
    for (const project of this.options.projects.all()) {
      if (!existsSync(join(project.root, '.baton', 'config.json'))) continue;
      await this.syncConfig(project.root).catch((error: unknown) => onError(project.root, error));
    }
  }

  /** The routine named `name`: in the caller's repository first, else the only one of that name. */
  async resolve(name: string, cwd: string | undefined): Promise<RoutineWithProject> {
    const all = this.options.store.named(name);
    if (cwd !== undefined) {
      const root = await findRepository(cwd).then(
        (r) => r.root,
        () => undefined,
      );
      const here = all.find((r) => r.project_root === root);
      if (here !== undefined) return here;
    }
    if (all.length === 1) return all[0]!;
    if (all.length > 1)
      throw new InvalidInputError(
        `"${name}" names routines in ${all.length} repositories (${all.map((r) => r.project_name).join(', ')}); run the command inside the one you mean.`,
      );
    throw new RoutineNotFoundError(
      name,
      this.options.store.all().map((r) => r.name),
    );
  }

  remove(routine: RoutineWithProject): void {
    this.options.store.delete(routine.id);
    this.options.bus.publish(RoutineRemoved, ref(routine));
  }

  setPaused(routine: RoutineWithProject, paused: boolean): RoutineWithProject {
    const now = this.options.clock.now();
    const spec = JSON.parse(routine.spec_json) as RoutineSpec;
    // Resumed, a schedule starts from now: the runs it slept through are not missed runs.
    const next =
      paused || spec.cron === undefined
        ? routine.next_run_at
        : (nextRun(spec.cron, spec.tz, now)?.toISOString() ?? null);
    this.options.store.setPaused(routine.id, paused, next, now);
    const updated = this.options.store.get(routine.id)!;
    this.options.bus.publish(RoutineChanged, { ...ref(updated), paused, nextRunAt: updated.next_run_at });
    return updated;
  }

  /** Refuses what cannot run: a bad name, schedule, template or prompt file. */
  check(root: string, name: string, raw: unknown): RoutineSpec {
    validateSessionName(name);
    if (name === 'templates')
      throw new InvalidInputError('"templates" is taken by `baton routine templates`; choose another name.');
    const parsed = RoutineSpec.safeParse(raw);
    if (!parsed.success) throw new InvalidInputError(formatIssues(parsed.error.issues));
    const spec = parsed.data;
    if (spec.cron !== undefined) checkSchedule(spec.cron, spec.tz, this.options.clock.now());
    if (spec.template !== undefined) templateNamed(spec.template);
    if (spec.promptFile !== undefined && !existsSync(join(root, spec.promptFile))) {
      throw new InvalidInputError(`The prompt file ${spec.promptFile} does not exist in ${root}.`);
    }
    return spec;
  }

  private upsert(
    project: ProjectRow,
    name: string,
    raw: RoutineSpec,
    source: 'cli' | 'config',
    existing: RoutineWithProject | undefined,
  ): RoutineWithProject {
    const spec = this.check(project.root, name, raw);
    const now = this.options.clock.now();
    const next = spec.cron === undefined ? null : (nextRun(spec.cron, spec.tz, now)?.toISOString() ?? null);
    if (existing === undefined) {
      this.options.store.insert({
        id: newId(),
        project_id: project.id,
        name,
        spec_json: JSON.stringify(spec),
        source,
        paused: 0,
        next_run_at: next,
        token: randomBytes(24).toString('base64url'),
        created_at: now.toISOString(),
      });
    } else {
      this.options.store.updateSpec(
        existing.id,
        JSON.stringify(spec),
        existing.paused === 1 ? existing.next_run_at : next,
        now,
      );
    }
    const routine = this.options.store.byName(project.id, name)!;
    this.options.bus.publish(RoutineAdded, {
      ...ref(routine),
      when: describeWhen(spec),
      nextRunAt: routine.next_run_at,
    });
    return routine;
  }
}

/** "every 0 9 * * 1 (Europe/Berlin)" or "on tag". */
export function describeWhen(spec: RoutineSpec): string {
  if (spec.cron !== undefined) return `cron ${spec.cron}${spec.tz === undefined ? '' : ` (${spec.tz})`}`;
  return `on ${spec.on ?? '?'}`;
}
