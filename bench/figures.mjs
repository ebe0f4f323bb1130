// The bench's figures as data, beside its printed lines: each is a value against its floor measured
// in the same run, so the ratio compares across machines and loads (`npm run bench:compare`).
//
// A section records with `figure(...)`. Sections run in this process and in child scripts alike:
// each appends a JSON line to the file named by BATON_BENCH_FIGURES (set by bench/run.mjs and handed
// down through the environment), and run.mjs gathers them into bench/results/figures.json at its end.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/**
 * One figure. `better` says which way is good: 'lower' for times (ratio = value / floor, a cost),
 * 'higher' for rates (ratio = value / floor, a share of the floor's speed).
 *
 * @param {{ section: string, name: string, value: number, unit: string, floor: number,
 *   floorName: string, better?: 'lower' | 'higher', goal?: number }} f
 */
export function figure(f) {
  const better = f.better ?? 'lower';
  if (!Number.isFinite(f.value) || !Number.isFinite(f.floor) || f.floor <= 0)
    throw new Error(`bench figure ${f.name}: value ${f.value} against floor ${f.floor} is not a measurement`);
  const row = {
    section: f.section,
    name: f.name,
    value: round(f.value),
    unit: f.unit,
    floor: round(f.floor),
    floorName: f.floorName,
    ratio: round(f.value / f.floor, 3),
    better,
    ...(f.goal === undefined ? {} : { goal: f.goal }),
  };
  const file = process.env.BATON_BENCH_FIGURES;
  if (file !== undefined && file !== '') appendFileSync(file, JSON.stringify(row) + '\n');
  return row;
}

/** The figures a run appended, the last of each name kept. */
export function readFigures(file) {
  if (!existsSync(file)) return [];
  const byName = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line);
    byName.set(row.name, row);
  }
  return [...byName.values()];
}

function round(x, digits = 1) {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}
