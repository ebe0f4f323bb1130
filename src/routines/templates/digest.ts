/**
 * The daily digest: yesterday's sessions (in the routine's time zone), summarised by the run's
 * agent; its report is saved as `.baton/notes/digest-YYYY-MM-DD.md` in the repository (a second
 * digest of the same day gets `-2`, never overwriting the first).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clip, NOTHING_TO_REPORT } from '../brief.js';
import { localDate, type RoutineTemplate, type TemplateContext } from './template.js';

export const digest: RoutineTemplate = {
  name: 'digest',
  description: "yesterday's sessions summarised into .baton/notes/digest-YYYY-MM-DD.md",
  options: {},
  prepare(ctx) {
    const day = yesterday(ctx);
    const sessions = ctx.sessions
      .list()
      .filter(
        (s) =>
          s.project_root === ctx.projectRoot &&
          localDate(new Date(s.last_event_at ?? s.updated_at), ctx.tz) === day,
      );
    if (sessions.length === 0) return Promise.resolve({ nothing: `no session worked on ${day}` });
    return Promise.resolve({
      prompt: [
        `Write the digest of ${day} for this repository: what each session set out to do, what it did, what is left open, and anything the team should decide. Markdown, headed "Digest of ${day}". Do not change any files: your final message is the digest, and Baton saves it as .baton/notes/digest-${day}.md.`,
        '',
        `Sessions of ${day}:`,
        ...sessions.map((s) => {
          const last = ctx.sessions.lastMessage(s.id);
          return `- ${s.name} (${s.agent}, ${s.state.replace(/_/g, ' ')}, branch ${s.branch}): ${clip(s.prompt.replace(/\s+/g, ' '), 300)}${last === undefined ? '' : `\n  last word: ${clip(last.replace(/\s+/g, ' '), 600)}`}`;
        }),
      ].join('\n'),
    });
  },
  finish(ctx, report) {
    if (report.trim() === '' || report.trim().startsWith(NOTHING_TO_REPORT)) return undefined;
    const folder = join(ctx.projectRoot, '.baton', 'notes');
    mkdirSync(folder, { recursive: true });
    const day = yesterday(ctx);
    let file = join(folder, `digest-${day}.md`);
    for (let n = 2; existsSync(file); n++) file = join(folder, `digest-${day}-${n}.md`);
    writeFileSync(file, report.endsWith('\n') ? report : `${report}\n`);
    return `wrote ${file.slice(ctx.projectRoot.length + 1)}`;
  },
};

function yesterday(ctx: TemplateContext): string {
  return localDate(new Date(ctx.now.getTime() - 86_400_000), ctx.tz);
}
