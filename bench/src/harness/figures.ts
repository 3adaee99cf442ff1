/**
 * Every number the benchmarks report is a figure: a measurement (median and spread of its
 * samples), a single value, or a ratio with its target. The table, `results/latest.json`
 * and BENCHMARKS.md are all written from the same list.
 */

/** The spread of a measurement's samples, in the figure's unit. */
export interface Spread {
  readonly p25: number;
  readonly p75: number;
  readonly min: number;
  readonly max: number;
  readonly samples: number;
}

/** What a ratio must be: `value <= limit` (at most), `value < limit` (below) or `value >= limit` (at least). */
export interface Target {
  readonly op: "<=" | "<" | ">=";
  readonly limit: number;
}

/** One reported number. */
export interface Figure {
  readonly group: string;
  readonly name: string;
  /** The median for a measurement; the value itself otherwise. */
  readonly value: number;
  readonly unit: string;
  readonly spread?: Spread;
  /** Present on ratios that have a target. */
  readonly target?: Target;
  readonly met?: boolean;
  /** One short line on what exactly was measured, when the name cannot say it. */
  readonly note?: string;
}

/** Collects the figures of one run, in the order they were measured. */
export class FigureLog {
  readonly figures: Figure[] = [];

  /** Records a figure and returns its value, for ratios built from it. */
  add(figure: Figure): number {
    this.figures.push(figure);
    return figure.value;
  }

  /** Records `numerator / denominator`, checked against `target` when given. */
  ratio(group: string, name: string, numerator: number, denominator: number, target?: Target, note?: string): number {
    const value = numerator / denominator;
    return this.add({
      group,
      name,
      value,
      unit: "×",
      ...(target ? { target, met: meets(value, target) } : {}),
      ...(note ? { note } : {}),
    });
  }
}

/** Whether `value` meets `target`. */
export function meets(value: number, target: Target): boolean {
  if (target.op === ">=") return value >= target.limit;
  return target.op === "<=" ? value <= target.limit : value < target.limit;
}

/** `≤ 1.5×` or `< 1×` for a ratio; `≤ 5 ms` for a figure in another unit. */
export function describeTarget(target: Target, unit = "×"): string {
  return `${{ "<=": "≤", "<": "<", ">=": "≥" }[target.op]} ${target.limit}${unit === "×" ? "×" : ` ${unit}`}`;
}

/** How far `value` misses `target`, in percent of the limit (positive). */
export function missedBy(value: number, target: Target): number {
  return (target.op === ">=" ? 1 - value / target.limit : value / target.limit - 1) * 100;
}
