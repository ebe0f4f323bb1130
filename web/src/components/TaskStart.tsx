/** Starting a session on a task from the page: the agent picked, then the supervisor dispatches it told the task's context. */
import { useState } from 'react';
import { useAgentNames } from '../agent-names.js';
import { api, errorText } from '../api.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { isScopeOverlap, type TaskCard } from '../tasks.js';
import { whyNot } from '../why.js';

export function TaskStart({ task, onDone }: { task: TaskCard; onDone: () => void }) {
  // Blank: the supervisor runs the configured agent, else the one installed (decision 185).
  const [agent, setAgent] = useState<string>('');
  const agents = useAgentNames();
  const [model, setModel] = useState('');
  const [error, setError] = useState<string>();
  const [overlap, setOverlap] = useState(false);
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);

  const start = async (e: React.FormEvent): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const started = await api.call('POST /api/tasks/:id/start', {
        params: { id: String(task.id) },
        body: {
          ...(agent === '' ? {} : { agent }),
          ...(model.trim() === '' ? {} : { model: model.trim() }),
          force,
        },
      });
      toast(
        started.heldBy === null
          ? `Started ${started.session.name} on task #${task.id}`
          : `${started.session.name} waits: ${started.heldBy}`,
      );
      for (const warning of started.warnings) toast(warning);
      onDone();
      navigate(`/s/${started.session.id}`);
    } catch (failure) {
      setError(errorText(failure));
      setOverlap(isScopeOverlap(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="task-form" data-testid="task-start-form" onSubmit={(e) => void start(e)}>
      <h2>
        Start task #{task.id}: {task.title}
      </h2>
      <div className="field-row">
        <label className="field">
          <span>Agent</span>
          <select name="agent" value={agent} onChange={(e) => setAgent(e.target.value)} autoFocus>
            <option value="">default (baton config set agent)</option>
            {agents.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Model</span>
          <input
            name="model"
            placeholder="agent default"
            value={model}
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
      </div>
      {error !== undefined && (
        <p className="error-text" data-testid="task-start-error">
          {error}
        </p>
      )}
      {overlap && (
        <label className="toggle">
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Go ahead
          although the scope overlaps
        </label>
      )}
      <div className="row-actions">
        <button
          className="btn btn-primary"
          type="submit"
          {...whyNot(busy && 'Starting a session on the task…')}
          data-testid="task-start-submit"
        >
          Start
        </button>
        <button className="btn" type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
