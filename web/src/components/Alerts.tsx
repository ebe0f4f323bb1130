/** The watchdog's open alerts with their evidence, each acknowledged with one click (the inbox and the Cost page). */
import { useEffect, useState } from 'react';
import type { AlertView } from '../../../src/api/watchdog.js';
import { api, errorText } from '../api.js';
import { ago } from '../format.js';
import { navigate } from '../router.js';
import { toast } from '../toast.js';
import { useWatchdogVersion } from '../watchdog.js';

export function OpenAlerts(props: { hideWhenNone?: boolean }) {
  const version = useWatchdogVersion();
  const [alerts, setAlerts] = useState<AlertView[] | undefined>(undefined);
  const [bump, setBump] = useState(0);
  useEffect(() => {
    let live = true;
    api.call('GET /api/alerts').then(
      (list) => live && setAlerts(list.alerts),
      (error: unknown) => live && toast(`Alerts: ${errorText(error)}`, 'error'),
    );
    return () => {
      live = false;
    };
  }, [version, bump]);
  if (alerts === undefined || (props.hideWhenNone === true && alerts.length === 0)) return null;
  return (
    <section className="alerts" data-testid="alerts">
      <h2 className="group-title">
        Alerts <span className="group-count">{alerts.length}</span>
      </h2>
      {alerts.length === 0 && <div className="muted">No open alerts.</div>}
      {alerts.map((alert) => (
        <div key={alert.id} className={`alert-row alert-${alert.action}`} data-testid="alert">
          <div className="alert-head">
            <strong className="alert-rule">{alert.rule.replace(/_/g, ' ')}</strong>
            {alert.sessionId !== null ? (
              <a
                href={`/s/${alert.sessionId}`}
                onClick={(e) => (e.preventDefault(), navigate(`/s/${alert.sessionId ?? ''}`))}
              >
                {alert.name}
              </a>
            ) : (
              <span className="muted">workspace</span>
            )}
            <span className="alert-message">{alert.message}</span>
            {alert.action !== 'alert' && (
              <span className="badge">{alert.action === 'pause' ? 'paused' : 'stopped'}</span>
            )}
            {/* Readable (decision 156): how long ago, the local date and time on hover. */}
            <time
              className="muted"
              dateTime={alert.raisedAt}
              title={new Date(alert.raisedAt).toLocaleString()}
              data-testid="alert-time"
              suppressHydrationWarning
            >
              {ago(alert.raisedAt)} ago
            </time>
            <span className="grow" />
            <button
              className="btn btn-sm"
              onClick={() =>
                void api.call('POST /api/alerts/:id/ack', { params: { id: alert.id } }).then(
                  () => setBump((n) => n + 1),
                  (error: unknown) => toast(errorText(error), 'error'),
                )
              }
            >
              Acknowledge
            </button>
          </div>
          {alert.evidence.length > 0 && (
            <ul className="alert-evidence">
              {alert.evidence.map((line, i) => (
                <li key={i}>
                  <code>{line}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </section>
  );
}
