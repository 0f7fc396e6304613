// Figures of the drills: a value, the goal it is held to (or none, for timings that are reported,
// never asserted), and the table RELIABILITY.md shows.

/** A goal a figure must meet: exactly `eq`, at most `max`, or at least `min`. */
export function meets(value, goal) {
  if (!goal) return true;
  if (goal.eq !== undefined) return value === goal.eq;
  if (goal.max !== undefined) return value <= goal.max;
  if (goal.min !== undefined) return value >= goal.min;
  throw new Error(`unknown goal ${JSON.stringify(goal)}`);
}

function goalText(goal) {
  if (!goal) return 'reported';
  if (goal.eq !== undefined) return `= ${goal.eq}`;
  if (goal.max !== undefined) return `≤ ${goal.max}`;
  return `≥ ${goal.min}`;
}

/** Collects figures; `add` returns the figure so drills can log it. */
export class Figures {
  constructor() {
    this.list = [];
    /** Per-case measurements behind the figures, by drill (written to the JSON only). */
    this.details = {};
  }

  /** Records `name` of `drill` = `value`, held to `goal` (`null` = reported only). */
  add(drill, name, value, goal = null, note = '') {
    const figure = { drill, name, value, goal, ok: meets(value, goal), note };
    this.list.push(figure);
    console.log(JSON.stringify({ suite: 'drills', ...figure }));
    return figure;
  }

  /** The figures that miss their goal. */
  failures() {
    return this.list.filter((f) => !f.ok);
  }
}

/** Summary of timings: count, median, p95 and max, rounded to ms. */
export function spread(values) {
  if (!values.length) return { n: 0, median: null, p95: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, median: Math.round(at(0.5)), p95: Math.round(at(0.95)), max: Math.round(sorted.at(-1)) };
}

function cell(value) {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(', ');
  }
  return String(value);
}

/** The RELIABILITY.md text for `figures` from a run described by `meta`. */
export function reliabilityMarkdown(figures, meta) {
  const lines = [
    '# Reliability drills',
    '',
    'Written by `scripts/drills.sh` (`node tests/drills/run.mjs`); CI runs the same drills with small',
    'counts (`tests/e2e/drills.test.mjs`) and fails on any figure that misses its goal. Timings are',
    'reported, never asserted. Figures of the last full run:',
    '',
    `- when: ${meta.when}; scale: ${meta.scale}; seeds per kill point: ${meta.seeds}; ${meta.machine}`,
    `- figures: ${figures.length}; missing their goal: ${figures.filter((f) => !f.ok).length}`,
    '',
    '| drill | figure | value | goal | met |',
    '|---|---|---|---|---|',
  ];
  for (const f of figures) {
    // A note quotes what the drill saw, which may hold a `|`: escaped so the row keeps its cells.
    const note = f.note ? ` (${String(f.note).replaceAll('|', '\\|')})` : '';
    lines.push(`| ${f.drill} | ${f.name}${note} | ${cell(f.value)} | ${goalText(f.goal)} | ${f.ok ? 'yes' : '**no**'} |`);
  }
  return `${lines.join('\n')}\n`;
}
