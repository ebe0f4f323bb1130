/**
 * The host's part of making a worktree ready (decision 59, "Setup runs in the session's host"): while
 * the session is `preparing`, run its environment plan (src/environments) and record each step and its
 * output as session events, so `baton logs -f`, `baton attach` and the page show progress live. The
 * whole output is also kept in `setup.log` in the session's folder. A session whose log already holds a
 * successful `setup.finished` is not prepared again (a respawn after the agent failed).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareWorktree, type EnvironmentPlan } from '../environments/index.js';
import type { EventBody } from '../events/index.js';

export const SETUP_LOG = 'setup.log';
/** Output is gathered this long before it becomes one event, so a chatty install is not thousands of events. */
const FLUSH_MS = 150;
const MAX_CHUNK = 8_000;

export async function prepareSession(input: {
  plan: EnvironmentPlan;
  worktree: string;
  sessionDir: string;
  env: NodeJS.ProcessEnv;
  record: (body: EventBody) => void;
  signal: AbortSignal;
}): Promise<{ ok: true } | { ok: false; message: string }> {
  const started = performance.now();
  const logPath = join(input.sessionDir, SETUP_LOG);
  writeFileSync(logPath, `# setup of ${input.worktree}, ${new Date().toISOString()}\n`);
  let pending: { index: number; text: string } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pending !== undefined && pending.text !== '')
      input.record({ type: 'setup.output', index: pending.index, text: pending.text });
    pending = undefined;
  };
  const result = await prepareWorktree(
    input.plan,
    input.worktree,
    input.env,
    {
      step(index, kind, label) {
        flush();
        appendFileSync(logPath, `\n$ ${kind} ${label}\n`);
        input.record({ type: 'setup.step', index, kind, label });
      },
      output(index, text) {
        appendFileSync(logPath, text);
        if (pending !== undefined && pending.index !== index) flush();
        pending ??= { index, text: '' };
        pending.text += text;
        if (pending.text.length >= MAX_CHUNK) flush();
        else timer ??= setTimeout(flush, FLUSH_MS);
      },
    },
    input.signal,
  );
  flush();
  const durationMs = Math.round(performance.now() - started);
  if (result.ok) {
    appendFileSync(logPath, `\n# ready in ${(durationMs / 1000).toFixed(1)} s\n`);
    input.record({ type: 'setup.finished', ok: true, durationMs });
    return { ok: true };
  }
  appendFileSync(logPath, `\n# failed: ${result.error}\n`);
  input.record({ type: 'setup.finished', ok: false, durationMs, error: result.error });
  const output = result.output === '' ? '' : `\n--- last output ---\n${result.output.slice(-2_000)}`;
  return {
    ok: false,
    message: `${result.error}. The whole output is in ${logPath}; \`baton respawn\` runs the setup again.${output}`,
  };
}
