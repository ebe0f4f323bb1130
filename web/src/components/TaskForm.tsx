/**
 * Adding a task, or editing one, from the Tasks page: title, description, scope (a glob a line),
 * tracker reference and the tasks it comes after. The supervisor checks everything (a cycle, a
 * reference that is not one, a scope meeting a running task's) and its message is shown as is;
 * a scope overlap can then be let through on purpose. Nothing is changed by a refused form.
 */
import { useState } from 'react';
import { api, errorText } from '../api.js';
import { toast } from '../toast.js';
import { isScopeOverlap, type TaskCard } from '../tasks.js';
import { whyNot } from '../why.js';

export interface TaskFormProps {
  /** The task edited, or undefined for a new one. */
  task: TaskCard | undefined;
  /** Repositories the page knows of (from tasks and sessions), offered for a new task. */
  projects: readonly string[];
  onDone: () => void;
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** "1, #2 3" → [1, 2, 3]; anything else is the supervisor's to refuse, so it is passed on as NaN. */
export function parseAfter(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .filter((t) => t !== '')
    .map((t) => (/^#?\d+$/.test(t) ? Number(t.replace('#', '')) : Number.NaN));
}

type Editable = Pick<TaskCard, 'title' | 'description' | 'scope' | 'tracker' | 'after'>;

/**
 * Only the fields a person changed are sent: saving a new title must not re-check a scope left
 * as it was (a running task's overlap would refuse it).
 */
export function changes(task: Editable, form: Editable): Partial<Editable> {
  const out: Partial<Editable> = {};
  if (form.title !== task.title) out.title = form.title;
  if (form.description !== task.description) out.description = form.description;
  if (form.tracker !== task.tracker) out.tracker = form.tracker;
  if (form.scope.join('\n') !== task.scope.join('\n')) out.scope = form.scope;
  if (form.after.join(',') !== task.after.join(',')) out.after = form.after;
  return out;
}

export function TaskForm({ task, projects, onDone }: TaskFormProps) {
  const [form, setForm] = useState({
    title: task?.title ?? '',
    description: task?.description ?? '',
    scope: task?.scope.join('\n') ?? '',
    tracker: task?.tracker ?? '',
    after: task?.after.map((id) => `#${id}`).join(', ') ?? '',
    project: task?.projectRoot ?? projects[0] ?? '',
  });
  const [error, setError] = useState<string>();
  const [overlap, setOverlap] = useState(false);
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      setForm({ ...form, [name]: e.target.value }),
  });

  const submit = async (e: React.FormEvent): Promise<void> => {
    e.preventDefault();
    const after = parseAfter(form.after);
    if (after.some((n) => !Number.isInteger(n) || n < 1)) {
      setError(`"After" takes task numbers such as #1, 2 — not "${form.after}".`);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const common = { title: form.title, description: form.description, scope: lines(form.scope), after };
      const tracker = form.tracker.trim() === '' ? null : form.tracker.trim();
      if (task !== undefined && Object.keys(changes(task, { ...common, tracker })).length === 0) {
        onDone();
        return;
      }
      const { task: saved, warnings } =
        task === undefined
          ? await api.call('POST /api/tasks', {
              body: { ...common, ...(tracker === null ? {} : { tracker }), project: form.project, force },
            })
          : await api.call('POST /api/tasks/:id', {
              params: { id: String(task.id) },
              body: { ...changes(task, { ...common, tracker }), force },
            });
      toast(task === undefined ? `Added task #${saved.id}` : `Saved task #${saved.id}`);
      for (const warning of warnings) toast(warning);
      onDone();
    } catch (failure) {
      setError(errorText(failure));
      setOverlap(isScopeOverlap(failure));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (): Promise<void> => {
    if (task === undefined) return;
    setBusy(true);
    try {
      await api.call('DELETE /api/tasks/:id', { params: { id: String(task.id) } });
      toast(`Removed task #${task.id}`);
      onDone();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="task-form" data-testid="task-form" onSubmit={(e) => void submit(e)}>
      <h2>{task === undefined ? 'New task' : `Edit task #${task.id}`}</h2>
      <label className="field">
        <span>Title</span>
        <input name="title" autoFocus required {...field('title')} />
      </label>
      <label className="field">
        <span>Description</span>
        <textarea name="description" rows={3} {...field('description')} />
      </label>
      <div className="field-row">
        <label className="field">
          <span>
            Scope <span className="muted">(a glob a line, e.g. src/watcher/**)</span>
          </span>
          <textarea name="scope" rows={2} {...field('scope')} />
        </label>
        <label className="field">
          <span>
            Tracker <span className="muted">(#432, ABC-12 or a URL)</span>
          </span>
          <input name="tracker" {...field('tracker')} />
        </label>
        <label className="field">
          <span>
            After <span className="muted">(tasks that land first)</span>
          </span>
          <input name="after" placeholder="#1, #2" {...field('after')} />
        </label>
      </div>
      {task === undefined && (
        <label className="field">
          <span>Repository</span>
          <input
            name="project"
            list="task-projects"
            placeholder="a folder inside the repository"
            {...field('project')}
          />
          <datalist id="task-projects">
            {projects.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </label>
      )}
      {error !== undefined && (
        <p className="error-text" data-testid="task-form-error">
          {error}
        </p>
      )}
      {overlap && (
        <label className="toggle">
          <input type="checkbox" name="force" checked={force} onChange={(e) => setForce(e.target.checked)} />{' '}
          Go ahead although the scope overlaps
        </label>
      )}
      <div className="row-actions">
        <button
          className="btn btn-primary"
          type="submit"
          {...whyNot(busy && 'Saving…')}
          data-testid="task-save"
        >
          {task === undefined ? 'Add task' : 'Save'}
        </button>
        <button className="btn" type="button" onClick={onDone}>
          Cancel
        </button>
        {task !== undefined && (
          <button
            className="btn btn-danger"
            type="button"
            {...whyNot(busy && 'Saving…')}
            onClick={() => void remove()}
            data-testid="task-remove"
          >
            Remove
          </button>
        )}
      </div>
    </form>
  );
}
