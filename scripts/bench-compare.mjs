#!/usr/bin/env node
// `npm run bench:compare [-- <figures.json> [<baseline.json>]] [--update]`: the regression guard.
// Compares each figure's ratio to its floor (not its absolute time, so another machine or a busier
// hour still compares) with the committed baseline's, and fails on any more than 25% worse, or on
// a baseline figure a section that ran no longer reports. `--update` writes the run's sections into
// the baseline: each section that ran replaces that section's figures, the others are kept.
import console from 'node:console';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

/** How much worse a ratio may get before it is flagged: 1.25 = 25% (decision 220). */
export const TOLERANCE = 1.25;

/**
 * A ratio must also move by more than this share of its floor to be flagged: a step of 1 ms against
 * a 300 ms floor that takes 2 ms is "100% worse" and nothing a user would feel (decision 220).
 */
export const SLACK = 0.05;

/**
 * How many times worse `current` is than `baseline` (> 1: worse, < 1: better), whichever way the
 * figure is good: a cost ratio (lower is better) grows when worse, a rate's share shrinks.
 */
export function worsening(baseline, current, better = 'lower') {
  return better === 'higher' ? baseline / current : current / baseline;
}

/**
 * Each figure of either run, judged: 'worse' (more than `tolerance` worse, and its ratio moved by
 * more than `slack`), 'better' (more than `tolerance` better, the same way), 'same', 'missing' (in the baseline, and its section ran, but not reported),
 * 'skipped' (its section did not run this time), 'new' (not in the baseline yet).
 */
export function compare(current, baseline, tolerance = TOLERANCE, slack = SLACK) {
  const ran = new Set(current.sections ?? current.figures.map((f) => f.section));
  const now = new Map(current.figures.map((f) => [f.name, f]));
  const rows = [];
  for (const base of baseline.figures) {
    const cur = now.get(base.name);
    now.delete(base.name);
    if (cur === undefined) {
      rows.push({ name: base.name, status: ran.has(base.section) ? 'missing' : 'skipped', baseline: base });
      continue;
    }
    const change = worsening(base.ratio, cur.ratio, base.better);
    const moved = Math.abs(cur.ratio - base.ratio) > slack;
    const status = !moved
      ? 'same'
      : change > tolerance
        ? 'worse'
        : change < 1 / tolerance
          ? 'better'
          : 'same';
    rows.push({ name: base.name, status, baseline: base, current: cur, change });
  }
  for (const cur of now.values()) rows.push({ name: cur.name, status: 'new', current: cur });
  const failed = rows.filter((r) => r.status === 'worse' || r.status === 'missing');
  return { rows, failed };
}

/** The comparison as a plain-text table, one figure a line. */
export function table(rows) {
  const head = ['figure', 'value', 'floor', 'baseline ×', 'now ×', 'change', 'status'];
  const lines = rows.map((r) => {
    const c = r.current;
    return [
      r.name,
      c === undefined ? '—' : `${c.value} ${c.unit}`,
      c === undefined ? '—' : `${c.floor} (${c.floorName})`,
      r.baseline === undefined ? '—' : r.baseline.ratio.toFixed(3),
      c === undefined ? '—' : c.ratio.toFixed(3),
      r.change === undefined ? '—' : `${r.change >= 1 ? '+' : ''}${((r.change - 1) * 100).toFixed(0)}%`,
      r.status === 'worse' || r.status === 'missing' ? r.status.toUpperCase() : r.status,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

/**
 * The baseline with the run's sections in it: a section the run measured takes the run's figures
 * (a figure it no longer reports goes with the old ones), a section it did not run keeps the
 * baseline's. A run of one section (`node bench/run.mjs tasks`) can so add or refresh its rows
 * without a whole run, which a busy machine may not finish (decision 347).
 */
export function merged(baseline, current) {
  const ran = new Set(current.sections ?? current.figures.map((f) => f.section));
  const kept = (baseline?.figures ?? []).filter((f) => !ran.has(f.section));
  const sections = [...new Set([...(baseline?.sections ?? []), ...ran])];
  return { ...current, sections, figures: [...kept, ...current.figures] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const args = process.argv.slice(2).filter((a) => a !== '--update');
  const currentFile = resolve(args[0] ?? `${root}/bench/results/figures.json`);
  const baselineFile = resolve(args[1] ?? `${root}/bench/baseline.json`);
  const read = (file) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      console.error(`bench:compare: cannot read ${file}: ${error.message} (run \`npm run bench\` first)`);
      process.exit(2);
    }
  };
  const current = read(currentFile);
  if (process.argv.includes('--update')) {
    let baseline;
    try {
      baseline = JSON.parse(readFileSync(baselineFile, 'utf8'));
    } catch {
      baseline = undefined;
    }
    const next = merged(baseline, current);
    writeFileSync(baselineFile, JSON.stringify(next, null, 2) + '\n');
    console.log(
      `bench:compare: ${current.figures.length} figures of ${[...new Set(current.figures.map((f) => f.section))].join(', ')} written to ${baselineFile} (${next.figures.length} in all)`,
    );
    process.exit(0);
  }
  const { rows, failed } = compare(current, read(baselineFile));
  console.log(table(rows));
  if (failed.length > 0) {
    console.log(
      `\n${failed.length} figure(s) more than ${Math.round((TOLERANCE - 1) * 100)}% worse than the baseline's ratio, or missing: ${failed.map((r) => r.name).join(', ')}`,
    );
    process.exitCode = 1;
  } else console.log(`\nno figure more than ${Math.round((TOLERANCE - 1) * 100)}% worse than the baseline`);
}
