/** Transcripts, search, handoff and import. Operations are in `src/context`. */
import { z } from 'zod';
import { AgentName, PermissionModeSchema, SessionView } from './index.js';
import { endpoint, type Table } from './endpoint.js';
import { intQuery } from './query.js';

const KINDS = [
  'message',
  'reasoning',
  'tool_input',
  'tool_output',
  'question',
  'answer',
  'error',
  'decision',
  'note',
] as const;

export const SearchQuery = z.object({
  q: z
    .string()
    .min(1, 'the search is empty')
    .max(1000)
    .describe('Words (prefix-matched), "phrases", AND, OR, NOT, parentheses'),
  project: z.string().optional().describe('Project name or root'),
  agent: z.string().optional(),
  session: z.string().optional().describe('Session id, id prefix or name (or an imported session)'),
  task: z.string().optional(),
  since: z.string().optional().describe('An age (30m, 12h, 7d, 2w) or a date'),
  kind: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      for (const k of value?.split(',') ?? [])
        if (!(KINDS as readonly string[]).includes(k))
          ctx.addIssue({ code: 'custom', message: `"kind" must be among ${KINDS.join(', ')}, got "${k}"` });
    })
    .describe(`Comma-separated: ${KINDS.join(', ')}`),
  limit: intQuery('limit', 1, 200).describe('Hits (default 20)'),
});

export const SearchHitView = z.object({
  source: z.enum(['event', 'imported', 'decision', 'note']),
  kind: z.enum(KINDS),
  sessionId: z.string().nullable(),
  sessionName: z.string().nullable(),
  seq: z.number().int().nullable().describe('Where the session opens at this hit'),
  docId: z.string().nullable(),
  projectId: z.string().nullable(),
  agent: z.string().nullable(),
  taskId: z.string().nullable(),
  ts: z.string(),
  snippet: z.string().describe('The matching words marked «like this»; secrets redacted'),
  score: z.number().describe('BM25: lower is better'),
});
export const SearchResult = z.object({ query: z.string(), hits: z.array(SearchHitView) });
export type SearchResult = z.infer<typeof SearchResult>;

export const TranscriptEntryView = z.object({
  seq: z.number().int(),
  ts: z.string(),
  role: z.enum(['user', 'assistant', 'reasoning', 'tool', 'question', 'answer', 'approval', 'error']),
  text: z.string(),
  tool: z.string().optional(),
  input: z.string().optional(),
  output: z.string().optional(),
  ok: z.boolean().optional(),
  files: z.array(z.string()).optional(),
});
export const TranscriptView = z.object({
  sessionId: z.string(),
  name: z.string(),
  agent: z.string(),
  origin: z.enum(['baton', 'claude', 'codex', 'gemini', 'opencode']),
  prompt: z.string(),
  cwd: z.string().nullable(),
  startedAt: z.string(),
  entries: z.array(TranscriptEntryView),
});
export const TranscriptExport = z.object({
  transcript: TranscriptView.describe('Secrets redacted'),
  markdown: z.string().describe('Secrets redacted'),
  path: z
    .string()
    .nullable()
    .describe("Where it was written in the repository's .baton/transcripts/ (toRepo)"),
});
export type TranscriptExport = z.infer<typeof TranscriptExport>;
export const TranscriptExportRequest = z.object({ toRepo: z.boolean().default(false) }).strict();

export const HandoffRequestBody = z
  .object({
    from: z.string().min(1).describe('Session id, id prefix or name, or an imported session'),
    to: AgentName.describe('The agent of the new session'),
    task: z.string().min(1, 'the task is empty').max(100_000),
    budget: z
      .number()
      .int()
      .min(200)
      .max(200_000)
      .optional()
      .describe('Token budget of the pack; none: a tenth of the transcript, from 1,500 to 8,000 tokens'),
    name: z.string().optional(),
    model: z.string().min(1).max(200).optional(),
    permissionMode: PermissionModeSchema.optional(),
    preview: z.boolean().default(false).describe('Only build the pack; start nothing'),
    fromBranch: z
      .boolean()
      .default(false)
      .describe("Start on the source session's branch (its landed commit once it has landed), not the base"),
  })
  .strict();
export const PackView = z.object({
  text: z.string(),
  tokens: z.number().int(),
  budgetTokens: z.number().int(),
  sourceTokens: z.number().int(),
  decisionsKept: z.number().int(),
  omitted: z.record(z.string(), z.number().int()),
});
export const HandoffView = z.object({
  handoffId: z.string().nullable(),
  session: SessionView.nullable(),
  pack: PackView,
});
export type HandoffView = z.infer<typeof HandoffView>;
export const HandoffLinkView = z.object({
  handoffId: z.string(),
  from: z.string(),
  to: z.string(),
  agent: z.string(),
  task: z.string(),
  packTokens: z.number().int(),
  createdAt: z.string(),
});
export const HandoffLinks = z.object({
  from: z.array(HandoffLinkView).describe('Handoffs that started this session'),
  to: z.array(HandoffLinkView).describe('Sessions this one handed off to'),
});
export type HandoffLinks = z.infer<typeof HandoffLinks>;

const absolute = z
  .string()
  .min(2)
  .max(4096)
  .refine((p) => p.startsWith('/') && !p.includes('\0'), 'must be an absolute path');
export const ImportRequest = z
  .object({
    claudeHome: absolute
      .optional()
      .describe("Claude Code's folder ($CLAUDE_CONFIG_DIR or ~/.claude); its projects/ is read"),
    codexHome: absolute
      .optional()
      .describe("Codex's folder ($CODEX_HOME or ~/.codex); its sessions/ is read"),
    geminiHome: absolute.optional().describe("Gemini CLI's folder (~/.gemini); its tmp/ is read"),
    opencodeData: absolute
      .optional()
      .describe(
        "opencode's data folder ($XDG_DATA_HOME/opencode or ~/.local/share/opencode); its opencode.db is read, read-only",
      ),
  })
  .strict()
  .refine(
    (r) =>
      r.claudeHome !== undefined ||
      r.codexHome !== undefined ||
      r.geminiHome !== undefined ||
      r.opencodeData !== undefined,
    'say what to import: claudeHome, codexHome, geminiHome, opencodeData or several',
  );
export const ImportReportView = z.object({
  vendor: z.enum(['claude', 'codex', 'gemini', 'opencode']),
  root: z.string(),
  files: z.number().int(),
  filesRead: z.number().int(),
  sessions: z.number().int(),
  events: z.number().int(),
  skipped: z.record(z.string(), z.number().int()),
  malformed: z.number().int(),
  unfinished: z.number().int(),
  batonSessions: z.number().int().describe('Files of sessions Baton ran itself, not imported again'),
});
export const ImportResult = z.object({ reports: z.array(ImportReportView) });
export type ImportResult = z.infer<typeof ImportResult>;

export const CONTEXT = {
  'GET /api/search': endpoint({
    summary: 'Full-text search over every transcript, decision and note (BM25, prefix matching)',
    query: SearchQuery,
    response: SearchResult,
  }),
  'GET /api/transcripts/:ref': endpoint({
    summary: "A session's normalized transcript (Baton's or imported), redacted, with its Markdown",
    response: TranscriptExport,
  }),
  'POST /api/transcripts/:ref/export': endpoint({
    summary: "Write the redacted Markdown transcript into the repository's .baton/transcripts/",
    body: TranscriptExportRequest,
    response: TranscriptExport,
  }),
  'POST /api/handoffs': endpoint({
    summary: 'Start a session of any agent carrying a handoff pack of another session',
    body: HandoffRequestBody,
    response: HandoffView,
    status: 201,
  }),
  'GET /api/handoffs/:ref': endpoint({
    summary: 'Handoffs into and out of a session',
    response: HandoffLinks,
  }),
  'POST /api/import': endpoint({
    summary: "Import Claude Code's and Codex's own transcript files (idempotent, incremental)",
    body: ImportRequest,
    response: ImportResult,
    tokenOnly: true,
  }),
} satisfies Table;
