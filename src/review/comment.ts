/**
 * A comment on lines of the combined diff, addressed to the session(s) that wrote them and
 * worded as a reply the agent can act on: the file, the lines, the lines themselves quoted, and
 * the reviewer's text.
 */
import type { z } from 'zod';
import type { GroupReview, ReviewCommentRequest, ReviewFile, ReviewHunk } from '../api/review.js';
import { InvalidInputError } from '../shared/errors.js';

const MAX_QUOTED = 20;

export interface BuiltComment {
  recipients: GroupReview['members'];
  reply: string;
  startLine: number;
  endLine: number;
}

export function buildComment(
  review: GroupReview,
  file: ReviewFile,
  request: z.output<typeof ReviewCommentRequest>,
): BuiltComment {
  const startLine = request.line;
  const endLine = request.endLine ?? request.line;
  if (endLine < startLine)
    throw new InvalidInputError(`The range ${startLine}–${endLine} ends before it starts.`);
  const where = `${file.path}:${startLine}${endLine === startLine ? '' : `-${endLine}`}`;

  const touched = file.hunks.filter((h) => overlaps(h, startLine, endLine));
  if (touched.length === 0) {
    const ranges = file.hunks.map((h) =>
      h.newCount === 0 ? `${h.newStart} (deleted lines)` : `${h.newStart}–${h.newStart + h.newCount - 1}`,
    );
    throw new InvalidInputError(
      `${where} is outside the changed lines of ${file.path}${ranges.length === 0 ? ' (a binary file or no text change)' : ` (changed hunks cover lines ${ranges.join(', ')})`}: comment on a line a session changed.`,
      { path: file.path, line: startLine },
    );
  }

  // Who wrote the lines in the range: the changed lines there, else (only context chosen) the hunks.
  const quoted: string[] = [];
  const writers = new Set<string>();
  for (const hunk of touched) {
    let lastNew = hunk.newCount === 0 ? hunk.newStart : hunk.newStart - 1;
    for (const line of hunk.lines) {
      const position = line.new ?? lastNew;
      if (line.new !== null) lastNew = line.new;
      const inRange =
        line.new !== null
          ? line.new >= startLine && line.new <= endLine
          : position >= startLine - 1 && position <= endLine;
      if (!inRange) continue;
      line.by.forEach((n) => writers.add(n));
      if (quoted.length < MAX_QUOTED)
        quoted.push(
          `    ${line.new === null ? '    ' : String(line.new).padStart(4)} ${line.kind} ${line.text}`,
        );
    }
  }
  if (writers.size === 0) touched.forEach((h) => h.sessions.forEach((n) => writers.add(n)));

  let recipients = review.members.filter((m) => writers.has(m.name));
  if (request.session !== undefined) {
    const chosen = review.members.find((m) => m.name === request.session || m.id === request.session);
    if (chosen === undefined)
      throw new InvalidInputError(
        `${request.session} is not in group ${review.number} (${review.members.map((m) => m.name).join(', ')}).`,
      );
    if (!writers.has(chosen.name))
      throw new InvalidInputError(
        `${where} was written by ${[...writers].join(' and ') || 'no session'}, not ${chosen.name}.`,
      );
    recipients = [chosen];
  }
  if (recipients.length === 0)
    throw new InvalidInputError(
      `No session of group ${review.number} wrote ${where}; comment on a line a session changed.`,
    );

  const others = review.members.filter((m) => !recipients.includes(m)).map((m) => m.name);
  const conflict =
    file.conflict === null
      ? ''
      : ` Your change to this file conflicts with ${file.conflict.sessions.filter((n) => !writers.has(n) || recipients.length > 1).join(' and ') || 'another session'}'s.`;
  const reply = [
    `Review comment on ${file.path}, ${endLine === startLine ? `line ${startLine}` : `lines ${startLine}–${endLine}`} (from the combined review of your work${others.length > 0 ? ` with ${others.join(', ')}` : ''}).${conflict}`,
    '',
    ...quoted,
    ...(quoted.length === MAX_QUOTED ? ['    …'] : []),
    '',
    request.text.trim(),
  ].join('\n');
  return { recipients, reply, startLine, endLine };
}

function overlaps(hunk: ReviewHunk, start: number, end: number): boolean {
  const first = hunk.newStart;
  // A hunk that only deletes sits between its newStart and the line after.
  const last = hunk.newCount === 0 ? hunk.newStart + 1 : hunk.newStart + hunk.newCount - 1;
  return start <= last && end >= first;
}
