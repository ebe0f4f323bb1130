/** Context (src/context): handoff packs made, and transcripts imported. */
import { z } from 'zod';
import { defineWorkspaceEvent } from './define.js';

export const HandoffCreated = defineWorkspaceEvent(
  'handoff.created',
  z.object({
    handoffId: z.string(),
    from: z.object({ sessionId: z.string(), name: z.string(), agent: z.string() }),
    to: z.object({ sessionId: z.string(), name: z.string(), agent: z.string() }),
    packTokens: z.number().int(),
    budgetTokens: z.number().int(),
  }),
);
export const TranscriptsImported = defineWorkspaceEvent(
  'transcripts.imported',
  z.object({
    vendor: z.enum(['claude', 'codex', 'gemini', 'opencode']),
    files: z.number().int(),
    sessions: z.number().int(),
    events: z.number().int(),
  }),
);
