/** The routine templates Baton ships. */
import { InvalidInputError } from '../../shared/errors.js';
import { digest } from './digest.js';
import { releaseNotesCheck } from './release-check.js';
import { staleWork } from './stale-work.js';
import type { RoutineTemplate } from './template.js';
import { todoSweep } from './todo-sweep.js';

export const TEMPLATES: readonly RoutineTemplate[] = [todoSweep, digest, releaseNotesCheck, staleWork];

export function templateNamed(name: string): RoutineTemplate {
  const found = TEMPLATES.find((t) => t.name === name);
  if (found === undefined)
    throw new InvalidInputError(
      `Unknown routine template "${name}"; the templates are ${TEMPLATES.map((t) => t.name).join(', ')}.`,
    );
  return found;
}

export { oldTodos, todoKey, type OldTodo } from './todo-sweep.js';
export { localDate, type Prepared, type RoutineTemplate, type TemplateContext } from './template.js';
