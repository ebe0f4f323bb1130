/**
 * Every disabled button says why (decision 193, "Every disabled button says why, and a landed commit
 * is titled by its prompt"): no component sets `disabled` on its own; each goes through `whyNot`,
 * which cannot disable without a reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstOf, whyNot } from './why.js';

const SRC = join(import.meta.dirname, '.');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.tsx')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('disabled buttons', () => {
  it('are disabled only through whyNot, in every component', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(20);
    const bare = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${file.slice(SRC.length + 1)}:${i + 1}`, line }))
        .filter(({ line }) => /\bdisabled[=:]/.test(line) && !line.trim().startsWith('//')),
    );
    expect(bare.map((b) => `${b.where}: ${b.line.trim()}`)).toEqual([]);
  });

  it('carry their reason as the tooltip, and their usual title when enabled', () => {
    expect(whyNot('Saving…', 'Save the task')).toEqual({
      disabled: true,
      title: 'Saving…',
      'data-why': 'Saving…',
    });
    expect(whyNot(false, 'Save the task')).toEqual({
      disabled: false,
      title: 'Save the task',
      'data-why': undefined,
    });
    // An empty reason is no reason: the button stays usable rather than disabled without a word.
    expect(whyNot('', 'Save').disabled).toBe(false);
    expect(whyNot(undefined).title).toBeUndefined();
  });

  it('take the first reason that holds', () => {
    expect(firstOf(false, 'Write a reply first', 'Sending…')).toBe('Write a reply first');
    expect(firstOf(false, undefined, null, '')).toBeUndefined();
  });
});
