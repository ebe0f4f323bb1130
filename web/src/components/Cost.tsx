/**
 * The Cost page: spend by session, task, agent or day, a chart of the last 24 hours, the budgets
 * and subscription windows with when each runs out at this rate, and the open alerts. Fetched
 * when the page opens and again when an alert or a budget changes.
 */
import { useEffect, useState } from 'react';
import type { CostReport } from '../../../src/api/watchdog.js';
import { api, errorText } from '../api.js';
import { usd } from '../format.js';
import { useWatchdogVersion } from '../watchdog.js';
import { OpenAlerts } from './Alerts.js';

type By = CostReport['by'];

export function Cost() {
  const version = useWatchdogVersion();
  const [by, setBy] = useState<By>('session');
  const [report, setReport] = useState<CostReport | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    api.call('GET /api/cost', { query: { by } }).then(
      (r) => live && (setReport(r), setError(undefined)),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [by, version]);
  return (
    <div className="cost-page" data-testid="cost-page">
      <div className="review-head">
        <h1>Cost</h1>
        <span className="muted">
          {report === undefined
            ? ''
            : `Prices as of ${report.priceTable.date}; an agent's own reported cost is used when it gives one.`}
        </span>
        <span className="grow" />
        <select
          className="project-select"
          value={by}
          onChange={(e) => setBy(e.target.value as By)}
          aria-label="Group by"
        >
          {(['session', 'task', 'agent', 'day'] as const).map((b) => (
            <option key={b} value={b}>
              by {b}
            </option>
          ))}
        </select>
      </div>
      {error !== undefined && <div className="empty">{error}</div>}
      {report !== undefined && (
        <>
          <div className="cost-summary" data-testid="cost-summary">
            <span>
              Total <strong>{usd(report.total.usd)}</strong>
            </span>
            <span>
              Today <strong>{usd(report.todayUsd)}</strong>
            </span>
            <span>
              Burn rate <strong>{usd(report.perHourUsd)}/h</strong>
            </span>
          </div>
          <HourlyChart hourly={report.hourly} />
          {(report.budgets.length > 0 || report.windows.length > 0) && (
            <ul className="cost-limits" data-testid="cost-limits">
              {report.budgets.map((b) => (
                <li key={b.scope}>Budget {b.summary}</li>
              ))}
              {report.windows.map((w) => (
                <li key={`${w.agent}/${w.name}`}>Window {w.summary}</li>
              ))}
            </ul>
          )}
          <table className="cost-table" data-testid="cost-table">
            <thead>
              <tr>
                <th>{by}</th>
                <th>input</th>
                <th>output</th>
                <th>cached</th>
                <th>cost</th>
              </tr>
            </thead>
            <tbody>
              {report.rows.map((row) => (
                <tr key={row.key} data-testid="cost-row">
                  <td>{row.key}</td>
                  <td>{row.inputTokens.toLocaleString()}</td>
                  <td>{row.outputTokens.toLocaleString()}</td>
                  <td>{row.cacheReadTokens.toLocaleString()}</td>
                  <td>
                    {usd(row.usd)}
                    {row.unpricedTokens > 0 && (
                      <span className="muted">
                        {' '}
                        + {row.unpricedTokens.toLocaleString()} tokens not priced (
                        {row.unpricedModels.join(', ')})
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <OpenAlerts />
    </div>
  );
}

/** Spend per hour over the last 24 hours: one bar each, scaled to the busiest hour. */
function HourlyChart({ hourly }: { hourly: CostReport['hourly'] }) {
  const top = Math.max(...hourly.map((h) => h.usd), 0);
  return (
    <div
      className="cost-chart"
      data-testid="cost-chart"
      role="img"
      aria-label="Spend per hour, last 24 hours"
    >
      {hourly.map((h) => (
        <div
          key={h.hour}
          className="cost-bar"
          title={`${h.hour.slice(11, 16)} UTC: ${usd(h.usd)}`}
          style={{ height: `${top === 0 ? 0 : Math.max(2, (h.usd / top) * 100)}%` }}
          data-usd={h.usd}
        />
      ))}
    </div>
  );
}
