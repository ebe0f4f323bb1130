import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compare, table, type Figure } from './bench-compare.mjs';

const fig = (name: string, ratio: number, more: Partial<Figure> = {}): Figure => ({
  section: 'cli',
  name,
  value: ratio * 100,
  unit: 'ms',
  floor: 100,
  floorName: 'bare node',
  ratio,
  better: 'lower',
  ...more,
});

describe('bench:compare', () => {
  const baseline = {
    sections: ['cli', 'fifty'],
    figures: [
      fig('ls', 1.2),
      fig('peek', 1.5),
      fig('logs', 1.4),
      fig('ingest rate', 0.5, { section: 'fifty', better: 'higher' }),
      fig('radar', 0.8, { section: 'radar' }),
    ],
  };

  it('flags a cost ratio more than 25% worse, and lets one within 25% or better pass', () => {
    const current = {
      sections: ['cli', 'fifty'],
      figures: [
        fig('ls', 1.2 * 1.3), // 30% worse
        fig('peek', 1.5 * 1.2), // 20% worse: noise
        fig('logs', 1.0), // better
        fig('ingest rate', 0.5, { section: 'fifty', better: 'higher' }),
      ],
    };
    const { rows, failed } = compare(current, baseline);
    const status = Object.fromEntries(rows.map((r) => [r.name, r.status]));
    expect(status).toEqual({
      ls: 'worse',
      peek: 'same',
      logs: 'better',
      'ingest rate': 'same',
      radar: 'skipped',
    });
    expect(failed.map((r) => r.name)).toEqual(['ls']);
  });

  it('reads a rate the other way: a smaller share of the floor is worse', () => {
    const run = (share: number) => ({
      sections: ['fifty'],
      figures: [fig('ingest rate', share, { section: 'fifty', better: 'higher' })],
    });
    const only = { sections: ['fifty'], figures: [baseline.figures[3]!] };
    expect(compare(run(0.35), only).failed.map((r) => r.name)).toEqual(['ingest rate']);
    expect(compare(run(0.45), only).rows[0]!.status).toBe('same');
    expect(compare(run(0.9), only).rows[0]!.status).toBe('better');
  });

  it('lets a tiny figure double without a flag: its ratio must also move by more than 0.05 of its floor', () => {
    const steps = { sections: ['dispatch'], figures: [fig('reserve', 0.003, { section: 'dispatch' })] };
    const doubled = { sections: ['dispatch'], figures: [fig('reserve', 0.006, { section: 'dispatch' })] };
    expect(compare(doubled, steps).rows[0]!.status).toBe('same');
    const grown = { sections: ['dispatch'], figures: [fig('reserve', 0.2, { section: 'dispatch' })] };
    expect(compare(grown, steps).failed.map((r) => r.name)).toEqual(['reserve']);
  });

  it('fails on a figure its section no longer reports, and lists a new one without failing', () => {
    const current = {
      sections: ['cli', 'fifty'],
      figures: [
        fig('ls', 1.2),
        fig('logs', 1.4),
        fig('ingest rate', 0.5, { section: 'fifty', better: 'higher' }),
        fig('ls --json', 1.3),
      ],
    };
    const { rows, failed } = compare(current, baseline);
    expect(rows.find((r) => r.name === 'peek')?.status).toBe('missing');
    expect(rows.find((r) => r.name === 'ls --json')?.status).toBe('new');
    expect(failed.map((r) => r.name)).toEqual(['peek']);
    const printed = table(rows);
    expect(printed).toMatch(/peek.*MISSING/);
    expect(printed).toMatch(/ls --json.*1\.300.*new/);
  });

  describe('as a command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-compare-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(import.meta.dirname, 'bench-compare.mjs');
    const write = (name: string, run: unknown) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(run));
      return file;
    };

    it('exits non-zero and prints the table when a figure got worse', () => {
      const base = write('base.json', { sections: ['cli'], figures: [fig('ls', 1.2), fig('peek', 1.5)] });
      const worse = write('worse.json', { sections: ['cli'], figures: [fig('ls', 2), fig('peek', 1.5)] });
      const r = spawnSync(process.execPath, [script, worse, base], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/ls .*1\.200 .*2\.000 .*\+67% .*WORSE/);
      expect(r.stdout).toMatch(/1 figure\(s\) more than 25% worse.*: ls/);
      const fine = write('fine.json', { sections: ['cli'], figures: [fig('ls', 1.1), fig('peek', 1.6)] });
      expect(execFileSync(process.execPath, [script, fine, base], { encoding: 'utf8' })).toMatch(
        /no figure more than 25% worse/,
      );
    });

    it('--update puts the sections a run measured into the baseline and keeps the others', () => {
      const base = write('update-base.json', baseline);
      const run = write('update-run.json', {
        date: 'now',
        sections: ['cli', 'tasks'],
        figures: [fig('ls', 1.1), fig('tasks board', 1.8, { section: 'tasks' })],
      });
      execFileSync(process.execPath, [script, run, base, '--update'], { encoding: 'utf8' });
      const written = JSON.parse(readFileSync(base, 'utf8')) as {
        date: string;
        sections: string[];
        figures: Figure[];
      };
      expect(written.date).toBe('now');
      expect(written.sections.sort()).toEqual(['cli', 'fifty', 'tasks']);
      // cli ran: its figures are the run's (peek and logs, no longer reported, are gone with it);
      // fifty and radar did not: theirs are kept.
      expect(written.figures.map((f) => `${f.section}:${f.name}:${f.ratio}`).sort()).toEqual([
        'cli:ls:1.1',
        'fifty:ingest rate:0.5',
        'radar:radar:0.8',
        'tasks:tasks board:1.8',
      ]);
    });

    it('says what is wrong with a file it cannot read', () => {
      const r = spawnSync(process.execPath, [script, join(dir, 'none.json'), join(dir, 'none.json')], {
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/cannot read .*none\.json/);
    });
  });
});
