/** `baton blame` and `baton why`: which session's turn wrote each line, and that turn's place in its transcript. */
import type { BlameLineView, SessionEvidenceView, WhyView } from '../../api/provenance.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

/** Width of the "who" column; a longer prompt excerpt is cut. */
const WHO_WIDTH = 60;

export async function blame(ctx: Context, file: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('GET /api/provenance/blame', { query: { file } });
  if (opts.json) return printJson(ctx, view);
  const numbers = String(view.lines.at(-1)?.line ?? 1).length;
  for (const line of view.lines)
    ctx.out.write(`${String(line.line).padStart(numbers)}  ${pad(who(line), WHO_WIDTH)}  ${line.text}\n`);
}

export async function why(ctx: Context, spec: string, opts: { json?: boolean }): Promise<void> {
  const api = await client(ctx);
  const view = await api.call('GET /api/provenance/why', { query: { file: spec } });
  if (opts.json) return printJson(ctx, view);
  ctx.out.write(renderWhy(view));
}

/** Who wrote a line, in a few words: the session, turn and prompt, or git's author and subject. */
export function who(line: BlameLineView): string {
  const turn = line.turn;
  if (turn === null) return `${line.commit.slice(0, 8)} ${line.author} "${firstLine(line.summary)}"`;
  return `${turn.name} turn ${turn.turn} (${turn.agent}) "${firstLine(turn.prompt)}"`;
}

export function renderWhy(view: WhyView): string {
  const { line } = view;
  const out: string[] = [`${view.path}:${line.line}  ${line.text}`, ''];
  const turn = line.turn;
  if (turn === null || view.transcript === null) {
    out.push(
      `No session of Baton's wrote this line: commit ${line.commit.slice(0, 12)} by ${line.author}${line.authorMail === '' ? '' : ` <${line.authorMail}>`}${line.at === '' ? '' : `, ${line.at}`}`,
      `  ${line.summary}`,
    );
    return `${out.join('\n')}\n`;
  }
  const model = turn.model === null ? '' : `, model ${turn.model}`;
  out.push(
    `Written by session ${turn.name}, turn ${turn.turn} (agent ${turn.agent}${model}${turn.task === null ? '' : `, task ${turn.task}`}), landed in ${line.commit.slice(0, 12)}.`,
  );
  if (turn.handoffFrom !== null) out.push(`The session was handed off from ${turn.handoffFrom}.`);
  out.push('', 'The turn answered:', ...indent(turn.prompt));
  if (turn.reply !== null) out.push('', 'Its last reply:', ...indent(turn.reply));
  out.push('', `Decisions it cited: ${turn.decisions.length === 0 ? 'none' : turn.decisions.join(', ')}`);
  const { transcript } = view;
  out.push(
    '',
    `Transcript: events ${transcript.startSeq}–${transcript.endSeq} of ${transcript.name}: ${transcript.command}${transcript.kept ? '' : ' (this workspace no longer holds the session; the note above is what is left)'}`,
  );
  for (const entry of transcript.entries) out.push(`  ${String(entry.seq).padStart(5)}  ${entry.text}`);
  return `${out.join('\n')}\n`;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

function pad(text: string, width: number): string {
  if (text.length > width) return `${text.slice(0, width - 2)}…"`;
  return text.padEnd(width);
}

function indent(text: string): string[] {
  return text.split('\n').map((l) => `  ${l}`);
}

/** `baton evidence [session]`: verified, failing or claimed, with the check Baton ran and on which tree. */
export async function evidence(
  ctx: Context,
  ref: string | undefined,
  opts: { json?: boolean },
): Promise<void> {
  const api = await client(ctx);
  const { sessions } = await api.call('GET /api/provenance/evidence', {
    query: ref === undefined ? {} : { session: ref },
  });
  if (opts.json) return printJson(ctx, sessions);
  if (sessions.length === 0) return void ctx.out.write('No sessions.\n');
  for (const s of sessions) ctx.out.write(`${renderEvidence(s)}\n`);
}

export function renderEvidence(s: SessionEvidenceView): string {
  const redGreen = s.redGreen === null ? '' : `\n${renderRedGreen(s.redGreen)}`;
  return `${renderRun(s)}${redGreen}`;
}

/** Each new test file's run on the base and with the change (decision 292). */
function renderRedGreen(r: NonNullable<SessionEvidenceView['redGreen']>): string {
  const lines = [
    `  new tests on the base (${r.base.slice(0, 12)}) with \`${r.command}\`, ${(r.durationMs / 1000).toFixed(1)} s:`,
  ];
  for (const t of r.tests)
    lines.push(
      `    ${t.file}: ${
        t.vacuous
          ? 'regression test passes without the change'
          : t.proves
            ? 'fails on the base, passes with the change'
            : `${t.base.replace('_', ' ')} on the base, ${t.branch.replace('_', ' ')} with the change`
      }`,
    );
  if (r.skipped > 0) lines.push(`    … and ${r.skipped} more not run`);
  return lines.join('\n');
}

function renderRun(s: SessionEvidenceView): string {
  const e = s.evidence;
  if (e !== null) {
    const tests =
      e.tests === null ? '' : `, ${e.tests.passed} passed, ${e.tests.failed} failed of ${e.tests.ran}`;
    const head = `${s.name}  ${s.status}: \`${e.command}\` ${e.outcome === 'timed_out' ? 'timed out' : `exit ${e.exitCode ?? 'by signal'}`} in ${(e.durationMs / 1000).toFixed(1)} s${tests} (turn ${e.turn}, tree ${e.tree.slice(0, 12)})`;
    return s.status === 'failing' ? `${head}\n${e.outputTail.replace(/^/gm, '    ')}` : head;
  }
  if (s.status === 'claimed')
    return `${s.name}  claimed: the agent ran ${s.claimed.map((c) => `\`${c}\``).join(', ')}; Baton did not verify it`;
  return `${s.name}  none: no check ran on this work ("verify": {"run": "turn"} in .baton/config.json runs one at each turn end)`;
}
