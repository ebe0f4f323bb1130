/** What agents do through Baton's MCP server (src/mcp): messages to sessions, and records. */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

/** Who acted: a session's agent, or (sessionId null) an MCP client outside Baton. */
const agentAuthor = z.object({ sessionId: z.string().nullable(), name: z.string() });
export const SessionMessageSent = defineWorkspaceEvent(
  'session.message_sent',
  z.object({
    from: agentAuthor,
    to: z.object(sessionRef),
    text: z.string(),
    delivery: z.enum(['now', 'after_turn', 'after_answer']),
  }),
);
/**
 * What agents record through the MCP server until the tasks domain holds them: each is its own
 * event (its seq is the record's id), listed back by type (decision 97). `project` is the author's project root, or null.
 */
const agentRecord = { author: agentAuthor, project: z.string().nullable() };
export const AgentDecisionRecorded = defineWorkspaceEvent(
  'agent.decision_recorded',
  z.object({ ...agentRecord, title: z.string(), text: z.string() }),
);
export const AgentNoteAdded = defineWorkspaceEvent(
  'agent.note_added',
  z.object({ ...agentRecord, text: z.string() }),
);
export const AgentTaskCreated = defineWorkspaceEvent(
  'agent.task_created',
  z.object({ ...agentRecord, title: z.string(), description: z.string() }),
);
