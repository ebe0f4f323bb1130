/** The scripted agent's script format: `{"steps": [ … ]}`, one action per step. */
import { z } from 'zod';
import { InvalidInputError, formatIssues } from '../../shared/errors.js';
import type { AgentEvent } from '../types.js';

const text = z.string().max(1_000_000);

export const Step = z.union([
  z.object({ say: text }).strict(),
  z.object({ think: text }).strict(),
  z.object({ write: z.object({ path: z.string().min(1), content: text }).strict() }).strict(),
  z.object({ edit: z.object({ path: z.string().min(1), old: text, new: text }).strict() }).strict(),
  z.object({ run: z.union([z.string().min(1), z.array(z.string()).min(1)]) }).strict(),
  z.object({ ask: text.min(1) }).strict(),
  z
    .object({
      approve: z
        .object({ tool: z.string().min(1), input: z.string(), reason: z.string().optional() })
        .strict(),
    })
    .strict(),
  z
    .object({
      sleep: z
        .number()
        .int()
        .min(0)
        .max(24 * 3600 * 1000),
    })
    .strict(),
  z
    .object({
      usage: z
        .object({
          input: z.number().int().min(0),
          output: z.number().int().min(0),
          usd: z.number().min(0).optional(),
          model: z.string().min(1).max(200).optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ fail: text }).strict(),
  /** The turn ends at the agent's usage limit (decision 262): the message, the window, when it resets. */
  z
    .object({
      limit: z
        .object({
          message: text,
          window: z.string().min(1).max(64).optional(),
          resetsAt: z.iso.datetime({ offset: true }).optional(),
        })
        .strict(),
    })
    .strict(),
  /** The agent reports its subscription windows (`limits.reported`), as claude and codex do from the API's headers. */
  z
    .object({
      windows: z
        .array(
          z
            .object({
              name: z.string().min(1).max(64),
              usedPercent: z.number().min(0).max(1000),
              windowMinutes: z.number().int().min(1).optional(),
              resetsAt: z.iso.datetime({ offset: true }).optional(),
            })
            .strict(),
        )
        .min(1)
        .max(10),
    })
    .strict(),
  /** Runs a command as `run` does; when it exits non-zero the turn ends in error (an agent giving up on a failing check). */
  z.object({ require: z.union([z.string().min(1), z.array(z.string()).min(1)]) }).strict(),
]);
export type Step = z.infer<typeof Step>;

export const Script = z
  .object({
    steps: z.array(Step).max(100_000),
    /** Steps run for each follow-up reply; `{{reply}}` is the reply's text (in a shell command, `"$BATON_REPLY"`). */
    onReply: z.array(Step).max(10_000).optional(),
  })
  .strict();
export type Script = z.infer<typeof Script>;

const STEP_KINDS = [
  'say',
  'think',
  'write',
  'edit',
  'run',
  'ask',
  'approve',
  'sleep',
  'usage',
  'fail',
  'limit',
  'require',
];

export function parseScript(raw: unknown, source = 'script'): Script {
  const result = Script.safeParse(raw);
  if (result.success) return result.data;
  throw new InvalidInputError(`Invalid ${source}${explain(raw)}`);
}

/** Says which step is wrong and how, rather than zod's "invalid input" for a failed union. */
function explain(raw: unknown): string {
  const shape = 'Expected {"steps": [{"say": "…"}, {"run": "cmd"}, …]}';
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `: not an object. ${shape}.`;
  const container = z
    .object({ steps: z.array(z.unknown()), onReply: z.array(z.unknown()).optional() })
    .strict()
    .safeParse(raw);
  if (!container.success) return `: ${formatIssues(container.error.issues)}. ${shape}.`;
  for (const list of ['steps', 'onReply'] as const) {
    const steps = container.data[list] ?? [];
    for (const [index, step] of steps.entries()) {
      const where = ` at ${list}.${index}`;
      const keys = typeof step === 'object' && step !== null ? Object.keys(step) : [];
      const kind = keys[0];
      if (keys.length !== 1 || kind === undefined || !STEP_KINDS.includes(kind)) {
        return `${where}: a step is an object with exactly one of ${STEP_KINDS.join(', ')}`;
      }
      const parsed = Step.safeParse(step);
      if (!parsed.success) {
        const issues = parsed.error.issues.flatMap((issue) =>
          'errors' in issue ? (issue.errors as { path: PropertyKey[]; message: string }[][]).flat() : [issue],
        );
        const relevant = issues.filter((issue) => issue.path[0] === kind);
        return `${where}: ${formatIssues(relevant.length > 0 ? relevant : issues)}`;
      }
    }
  }
  return `. ${shape}.`;
}

/** Used when a scripted session is dispatched without a script. */
export function defaultScript(prompt: string): Script {
  return {
    steps: [
      { say: `Working on: ${prompt}` },
      { think: 'Look at the repository, then leave a note of the plan.' },
      { run: 'git status --short' },
      {
        write: {
          path: 'BATON_NOTES.md',
          content: `# Notes\n\nTask: ${prompt}\n\n- read the code\n- made this note\n`,
        },
      },
      { usage: { input: 1200, output: 300, usd: 0.01 } },
      { say: 'Done. I wrote BATON_NOTES.md with the plan.' },
    ],
    onReply: [{ say: 'Noted: {{reply}}' }],
  };
}

/** Replaces `{{reply}}` with the latest reply the agent received. */
export function fill(template: string, replies: readonly string[]): string {
  return template.replace(REPLY_PLACEHOLDER, latestReply(replies));
}

export function latestReply(replies: readonly string[]): string {
  return replies[replies.length - 1] ?? '';
}

/** Commands run by the scripted agent find the latest reply in this variable. */
export const REPLY_VARIABLE = 'BATON_REPLY';

/**
 * A shell command's `{{reply}}`: a reply is data, so it reaches the shell as the variable
 * $BATON_REPLY, quoted for where the placeholder stands (bare, in "…" or in '…'), and never as
 * shell text it would parse (`$(…)`, `;`, quotes).
 */
export function fillShell(template: string): string {
  const variable = `\${${REPLY_VARIABLE}}`;
  const bySpot = { bare: `"${variable}"`, double: variable, single: `'"${variable}"'` };
  let out = '';
  let quote: 'bare' | 'double' | 'single' = 'bare';
  for (let i = 0; i < template.length; i++) {
    if (template.startsWith(PLACEHOLDER, i)) {
      out += bySpot[quote];
      i += PLACEHOLDER.length - 1;
      continue;
    }
    const char = template[i];
    out += char;
    if (char === '\\' && quote !== 'single') out += template[++i] ?? '';
    else if (char === "'" && quote !== 'double') quote = quote === 'single' ? 'bare' : 'single';
    else if (char === '"' && quote !== 'single') quote = quote === 'double' ? 'bare' : 'double';
  }
  return out;
}

const PLACEHOLDER = '{{reply}}';
const REPLY_PLACEHOLDER = /\{\{reply\}\}/g;

/** A `usage` step's report. A model of the price table prices its tokens the way a Codex session's are (no cost reported). */
export function usageEvent(
  usage: Extract<Step, { usage: unknown }>['usage'],
): Extract<AgentEvent, { type: 'usage.reported' }> {
  return {
    type: 'usage.reported',
    inputTokens: usage.input,
    outputTokens: usage.output,
    ...(usage.usd === undefined ? {} : { costUsd: usage.usd }),
    model: usage.model ?? 'scripted',
  };
}
