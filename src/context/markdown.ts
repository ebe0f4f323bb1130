/** A transcript as Markdown: for people, for the repository's `.baton/transcripts/`, always redacted. */
import { redactTranscript, type Transcript, type TranscriptEntry } from './transcript.js';

const LONG_OUTPUT = 4000;

export function renderMarkdown(transcript: Transcript): string {
  const t = redactTranscript(transcript);
  const lines = [
    `# ${t.name}`,
    '',
    `- agent: ${t.agent}${t.origin === 'baton' ? '' : ` (imported from ${t.origin}'s own transcript)`}`,
    `- session: ${t.sessionId}`,
    ...(t.cwd === null ? [] : [`- folder: ${t.cwd}`]),
    `- started: ${t.startedAt}`,
    '',
    '## Task',
    '',
    quote(t.prompt),
    '',
    '## Transcript',
    '',
  ];
  for (const entry of t.entries) lines.push(...renderEntry(entry), '');
  return lines.join('\n').trimEnd() + '\n';
}

function renderEntry(entry: TranscriptEntry): string[] {
  switch (entry.role) {
    case 'user':
      return ['### User', '', entry.text];
    case 'assistant':
      return ['### Assistant', '', entry.text];
    case 'reasoning':
      return ['### Reasoning', '', quote(entry.text)];
    case 'question':
      return ['### Question to the user', '', entry.text];
    case 'answer':
      return ['### Answer', '', entry.text];
    case 'error':
      return ['### Error', '', entry.text];
    case 'approval':
      return ['### Approval asked', '', fence(entry.text)];
    case 'tool': {
      const status = entry.ok === undefined ? '' : entry.ok ? ' (ok)' : ' (failed)';
      const files =
        entry.files === undefined || entry.files.length === 0
          ? []
          : [`Files: ${entry.files.map((f) => `\`${f}\``).join(', ')}`, ''];
      const output =
        entry.output === undefined || entry.output === '' ? [] : ['Output:', fence(clip(entry.output))];
      return [
        `### Tool: ${entry.tool ?? entry.text}${status}`,
        '',
        ...files,
        fence(entry.input ?? ''),
        ...output,
      ];
    }
  }
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

/** A fence longer than any run of backticks inside, so the block cannot be closed early. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function clip(text: string): string {
  return text.length <= LONG_OUTPUT
    ? text
    : `${text.slice(0, LONG_OUTPUT)}\n… (${text.length - LONG_OUTPUT} more characters)`;
}
