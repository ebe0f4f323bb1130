/** Start a session: the same request `baton dispatch` sends, validated by the same schema. */
import { useMemo, useState } from 'react';
import { PlacedDispatchRequest } from '../../../src/api/index.js';
import { DEFAULT_PERMISSION_MODE, PERMISSION_MODES } from '../../../src/events/vocabulary.js';
import { useAgentNames } from '../agent-names.js';
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { whyNot } from '../why.js';

export function DispatchForm() {
  const board = useBoard();
  const agents = useAgentNames();
  const roots = useMemo(
    () => [...new Set([...board.sessions.values()].map((s) => s.projectRoot))].sort(),
    [board.sessions],
  );
  const [form, setForm] = useState({
    prompt: '',
    name: '',
    // Blank: the supervisor runs the configured agent, else the one installed (decision 185).
    agent: '',
    model: '',
    base: '',
    cwd: '',
    permissionMode: DEFAULT_PERMISSION_MODE,
    script: '',
  });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const field = (key: keyof typeof form) => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value }),
  });
  const cwd = form.cwd || roots[0] || '';

  const submit = () => {
    let options: Record<string, unknown> = {};
    if (form.agent === 'scripted' && form.script.trim() !== '') {
      try {
        options = { script: JSON.parse(form.script) as unknown };
      } catch {
        return setError('The script is not valid JSON. Expected {"steps": [{"say": "…"}, …]}.');
      }
    }
    const parsed = PlacedDispatchRequest.safeParse({
      prompt: form.prompt,
      cwd,
      ...(form.agent === '' ? {} : { agent: form.agent }),
      permissionMode: form.permissionMode,
      options,
      ...(form.name.trim() ? { name: form.name.trim() } : {}),
      ...(form.model.trim() ? { model: form.model.trim() } : {}),
      ...(form.base.trim() ? { base: form.base.trim() } : {}),
    });
    if (!parsed.success)
      return setError(
        parsed.error.issues
          .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
          .join('; '),
      );
    setBusy(true);
    setError(undefined);
    api.call('POST /api/sessions', { body: parsed.data }).then(
      ({ session, warnings, agentChosen }) => {
        const chosen = agentChosen === undefined ? '' : ` with ${agentChosen}`;
        toast(
          warnings === undefined || warnings.length === 0
            ? `Dispatched ${session.name}${chosen}`
            : `Dispatched ${session.name}${chosen}; warning: ${warnings.join('; ')}`,
        );
        navigate(`/s/${session.id}`);
      },
      (e: unknown) => {
        setBusy(false);
        setError(errorText(e));
      },
    );
  };

  return (
    <form
      className="dispatch"
      data-testid="dispatch-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h1>Dispatch a session</h1>
      <p className="muted">
        The agent works on its own branch in its own worktree; your checkout stays untouched.
      </p>
      <label className="field">
        <span>Task</span>
        <textarea
          name="prompt"
          rows={5}
          placeholder="What should the agent do?"
          autoFocus
          {...field('prompt')}
        />
      </label>
      <label className="field">
        <span>Repository</span>
        <input
          name="cwd"
          list="roots"
          placeholder="a folder inside the repository"
          value={cwd}
          onChange={field('cwd').onChange}
        />
        <datalist id="roots">
          {roots.map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
      </label>
      <div className="field-row">
        <label className="field">
          <span>Name</span>
          <input name="name" placeholder="from the task" {...field('name')} />
        </label>
        <label className="field">
          <span>Agent</span>
          <select name="agent" {...field('agent')}>
            <option value="">default (baton config set agent)</option>
            {agents.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Model</span>
          <input name="model" placeholder="agent default" {...field('model')} />
        </label>
      </div>
      <div className="field-row">
        <label className="field">
          <span>Base branch</span>
          <input name="base" placeholder="HEAD" {...field('base')} />
        </label>
        <label className="field">
          <span>Approvals</span>
          <select name="permissionMode" {...field('permissionMode')}>
            {PERMISSION_MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
      </div>
      {form.agent === 'scripted' && (
        <label className="field">
          <span>
            Script <span className="muted">(optional JSON for the scripted agent)</span>
          </span>
          <textarea
            name="script"
            rows={4}
            className="mono"
            placeholder='{"steps": [{"say": "hello"}, {"write": {"path": "a.txt", "content": "hi"}}]}'
            {...field('script')}
          />
        </label>
      )}
      {error !== undefined && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      <div className="row-actions">
        <button className="btn btn-primary" type="submit" {...whyNot(busy && 'Starting the session…')}>
          {busy ? 'Dispatching…' : 'Dispatch'}
        </button>
      </div>
    </form>
  );
}
