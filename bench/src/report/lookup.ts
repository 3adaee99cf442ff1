/** Finding figures by group and name, for the report's analyses. */
import type { Figure } from "../harness/figures.ts";

/** The figures of a run, looked up by group and by the start of their name. */
export class FigureIndex {
  constructor(readonly figures: readonly Figure[]) {}

  /** The figures of `group`, whatever its parenthesized detail: `Loop over HTTP (N = 200)`. */
  inGroup(group: string): Figure[] {
    return this.figures.filter((figure) => figure.group === group || figure.group.startsWith(`${group} (`));
  }

  /** The first figure in `group` whose name starts with `name`. */
  find(group: string, name: string): Figure | undefined {
    return this.inGroup(group).find((figure) => figure.name.startsWith(name));
  }

  /** Its value, or NaN when the run did not measure it. */
  value(group: string, name: string): number {
    return this.find(group, name)?.value ?? Number.NaN;
  }

  /** Whether the p25–p75 spreads of two measurements in `group` overlap. */
  overlap(group: string, first: string, second: string): boolean {
    const a = this.find(group, first)?.spread;
    const b = this.find(group, second)?.spread;
    return a !== undefined && b !== undefined && a.p25 <= b.p75 && b.p25 <= a.p75;
  }

  /** Whether the figure's target was missed (false when it was met or not measured). */
  missed(group: string, name: string): boolean {
    return this.find(group, name)?.met === false;
  }
}

/** `12%` from a ratio of 1.12; `-3%` from 0.97. */
export function percentOver(ratio: number): string {
  return `${Math.round((ratio - 1) * 100)}%`;
}
