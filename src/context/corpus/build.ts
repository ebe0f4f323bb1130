/**
 * Turns a scripted corpus session into the events Baton stores for a session (its event log's
 * shape), with the noise scaled: at 1× a session is about 200 KB of transcript, as the long design
 * sessions the corpus stands for; at 5× the same facts sit in five times the noise.
 */
import { EVENT_SCHEMA_VERSION, type BatonEvent, type EventBody } from '../../events/index.js';
import { transcriptFromEvents, type Transcript } from '../transcript.js';
import type { Beat, CorpusSession, NoiseKind } from './types.js';

const CHATTER = [
  'Let me run the tests again.',
  'Looking at the output now.',
  "I'll use grep to find the callers.",
  'That looks fine so far.',
  'Checking the next file.',
  'Let me look at how this is wired.',
  'OK, moving on.',
  'Running the build to be sure.',
  'Hmm, let me read that again.',
  'Good, that compiles.',
];

export function sessionEvents(session: CorpusSession, noise: number): BatonEvent[] {
  const bodies: EventBody[] = [{ type: 'turn.started', prompt: session.prompt }];
  let tools = 0;
  let block = 0;
  const tool = (
    name: string,
    kind: 'run' | 'edit' | 'read' | 'other',
    input: string,
    output: string,
    ok: boolean,
    files?: string[],
  ): void => {
    const toolId = `t${++tools}`;
    bodies.push({
      type: 'tool.started',
      toolId,
      tool: name,
      kind,
      input,
      ...(files === undefined ? {} : { files }),
    });
    bodies.push({
      type: 'tool.finished',
      toolId,
      tool: name,
      ok,
      output,
      ...(files === undefined ? {} : { files }),
    });
  };
  const claude = session.agent === 'claude';
  const shell = claude ? 'Bash' : 'shell';
  const beat = (b: Beat): void => {
    if ('say' in b) bodies.push({ type: 'message.added', role: 'assistant', text: b.say });
    else if ('think' in b) bodies.push({ type: 'thinking.added', text: b.think });
    else if ('user' in b) bodies.push({ type: 'message.added', role: 'user', text: b.user });
    else if ('ask' in b) {
      bodies.push({ type: 'question.asked', text: b.ask });
      if (b.answer !== undefined) bodies.push({ type: 'question.answered', text: b.answer });
    } else if ('run' in b) tool(shell, 'run', b.run, b.output, b.ok ?? true);
    else if ('edit' in b)
      tool(
        b.tool ?? (claude ? 'Edit' : 'apply_patch'),
        'edit',
        claude ? JSON.stringify({ file_path: b.edit, new_string: b.content }) : b.edit,
        '',
        true,
        [b.edit],
      );
    else if ('read' in b)
      tool(
        claude ? 'Read' : shell,
        'read',
        claude ? JSON.stringify({ file_path: b.read }) : `cat ${b.read}`,
        b.content,
        true,
        claude ? [b.read] : undefined,
      );
    else if ('decide' in b)
      tool(
        claude ? 'mcp__baton__record_decision' : 'baton.record_decision',
        'other',
        claude ? JSON.stringify(b.decide) : '',
        `Recorded decision: ${b.decide.title}`,
        true,
      );
    else for (const n of noiseBeats(b.noise, noise, session, block++)) beat(n);
  };
  for (const b of session.beats) beat(b);
  return bodies.map((body, i) => ({
    v: EVENT_SCHEMA_VERSION,
    seq: i + 1,
    ts: new Date(Date.UTC(2026, 0, 1, 9, 0, i)).toISOString(),
    ...body,
  }));
}

export function corpusTranscript(session: CorpusSession, noise: number): Transcript {
  return transcriptFromEvents(
    {
      sessionId: `corpus-${session.name}`,
      name: session.name,
      agent: session.agent,
      origin: 'baton',
      prompt: session.prompt,
      cwd: null,
      startedAt: '2026-01-01T09:00:00.000Z',
    },
    sessionEvents(session, noise),
  );
}

/** The noise of one block: what a long session is mostly made of. */
function noiseBeats(kind: NoiseKind, factor: number, session: CorpusSession, block: number): Beat[] {
  const out: Beat[] = [];
  const [a, b, c, d] = session.topic as [string, string, string, string];
  const reps = (n: number): number => Math.max(1, Math.round(n * factor));
  switch (kind) {
    case 'tests':
      for (let r = 0; r < reps(12); r++) {
        out.push({ say: CHATTER[(block + r) % CHATTER.length]! });
        out.push({ run: 'npm test', output: testOutput(session, r + block, true), ok: true });
      }
      break;
    case 'failing-tests':
      for (let r = 0; r < reps(10); r++) {
        out.push({
          say: r % 2 === 0 ? `Still failing; the ${a} test again.` : 'Same failure, trying another angle.',
        });
        out.push({
          run: `npx vitest run test/${a}.test.ts`,
          output: testOutput(session, r + block, false),
          ok: false,
        });
      }
      break;
    case 'reads':
      for (let r = 0; r < reps(10); r++) {
        const path = `src/${a}/${[b, c, d][r % 3]}-${block}-${r}.ts`;
        out.push({ read: path, content: codeFile(session, path, r) });
      }
      break;
    case 'chatter':
      for (let r = 0; r < reps(36); r++)
        out.push(
          r % 3 === 0
            ? {
                think: `${CHATTER[(r + block) % CHATTER.length]!} The ${b} code path looks the same as before.`,
              }
            : { say: CHATTER[(r + block) % CHATTER.length]! },
        );
      break;
    case 'grep':
      for (let r = 0; r < reps(8); r++)
        out.push({
          run: `rg -n "${b}" src`,
          output: Array.from(
            { length: 45 },
            (_, i) => `src/${a}/${c}-${i % 9}.ts:${10 + i}:  const ${b}${i} = await ${a}.${d}(${b}Options);`,
          ).join('\n'),
          ok: true,
        });
      break;
  }
  return out;
}

function testOutput(session: CorpusSession, run: number, pass: boolean): string {
  const [a, b, c, d] = session.topic as [string, string, string, string];
  const lines = [` RUN  v1.6.0 /repo`, ''];
  for (let i = 0; i < 48; i++)
    lines.push(
      ` ✓ test/${a}/${[b, c, d][i % 3]}.test.ts > ${b} ${c} case ${i} handles the ${d} ${i % 5 === 0 ? 'edge' : 'path'} (${(i * 7 + run) % 40} ms)`,
    );
  if (!pass)
    lines.push(
      ` ✗ test/${a}/${b}.test.ts > ${b} ${d} under load`,
      `   AssertionError: expected ${a} ${b} to settle within 2000 ms`,
      `    at test/${a}/${b}.test.ts:${40 + (run % 3)}:7`,
    );
  lines.push(
    '',
    ` Test Files  ${pass ? 12 : 11} passed${pass ? '' : ' | 1 failed'} (12)`,
    `      Tests  ${pass ? 48 : 47} passed${pass ? '' : ' | 1 failed'} (48)`,
    `   Duration  ${(3 + (run % 7) / 10).toFixed(1)}s`,
  );
  return lines.join('\n');
}

function codeFile(session: CorpusSession, path: string, r: number): string {
  const [a, b, c] = session.topic as [string, string, string, string];
  const lines = [`// ${path}`, `import { ${b}Options } from '../${a}/options.js';`, ''];
  for (let i = 0; i < 30; i++)
    lines.push(
      `export function ${c}${i}_${r}(input: ${b}Options): number {`,
      `  return input.${b}Size * ${i} + ${r};`,
      '}',
    );
  return lines.join('\n');
}
