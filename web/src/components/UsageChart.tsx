/** Cost and tokens over the session's life, from its usage reports' running totals. */
import { useEffect, useState } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import type { UsagePoint } from '../../../src/api/web.js';
import { api, errorText } from '../api.js';
import { tokens, usd } from '../format.js';

const W = 640;
const H = 160;

export function UsageChart({ session }: { session: SessionView }) {
  const [points, setPoints] = useState<UsagePoint[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api.call('GET /api/sessions/:ref/usage', { params: { ref: session.id } }).then(
      (u) => setPoints(u.points),
      (e: unknown) => setError(errorText(e)),
    );
  }, [session.id, session.lastSeq]);
  if (error !== undefined) return <div className="empty error-text">{error}</div>;
  if (points === undefined) return <div className="empty">Loading usage…</div>;
  return (
    <div className="usage" data-testid="usage">
      <div className="usage-totals">
        <Total label="Cost" value={usd(session.costUsd)} />
        <Total label="Input tokens" value={tokens(session.inputTokens)} />
        <Total label="Output tokens" value={tokens(session.outputTokens)} />
        <Total label="Reports" value={String(points.length)} />
      </div>
      {points.length < 2 ? (
        <div className="muted">
          {points.length === 0
            ? 'No usage reported yet.'
            : 'One usage report so far; the chart starts with the second.'}
        </div>
      ) : (
        <>
          <Chart points={points} pick={(p) => p.costUsd} label="Cost" format={usd} color="var(--accent)" />
          <Chart
            points={points}
            pick={(p) => p.inputTokens + p.outputTokens}
            label="Tokens"
            format={tokens}
            color="var(--violet)"
          />
        </>
      )}
    </div>
  );
}

function Total({ label, value }: { label: string; value: string }) {
  return (
    <div className="total">
      <div className="total-value">{value}</div>
      <div className="total-label">{label}</div>
    </div>
  );
}

function Chart(props: {
  points: UsagePoint[];
  pick: (p: UsagePoint) => number;
  label: string;
  format: (n: number) => string;
  color: string;
}) {
  const t0 = Date.parse(props.points[0]?.ts ?? '');
  const t1 = Date.parse(props.points.at(-1)?.ts ?? '');
  const max = Math.max(...props.points.map(props.pick), 1e-9);
  const x = (p: UsagePoint) => (t1 === t0 ? 0 : ((Date.parse(p.ts) - t0) / (t1 - t0)) * W);
  const y = (p: UsagePoint) => H - (props.pick(p) / max) * (H - 10);
  const line = props.points
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p).toFixed(1)},${y(p).toFixed(1)}`)
    .join(' ');
  return (
    <figure className="chart">
      <figcaption>
        {props.label} <span className="muted">up to {props.format(max)}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${props.label} over time`}
      >
        <path d={`${line} L${W},${H} L0,${H} Z`} fill={props.color} opacity="0.12" />
        <path d={line} fill="none" stroke={props.color} strokeWidth="2" vectorEffect="non-scaling-stroke" />
      </svg>
    </figure>
  );
}
