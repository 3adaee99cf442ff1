/** The console table: one row per figure, grouped, with median, spread and verdict. */
import type { Figure } from "./figures.ts";
import { formatSpread, formatValue, formatVerdict } from "./format.ts";

/** Renders the figures as a plain-text table. */
export function renderTable(figures: readonly Figure[]): string {
  const rows: string[][] = [];
  let group: string | undefined;
  for (const figure of figures) {
    if (figure.group !== group) {
      group = figure.group;
      rows.push([`— ${group}`, "", "", ""]);
    }
    rows.push([`  ${figure.name}`, formatValue(figure), formatSpread(figure), formatVerdict(figure)]);
  }
  const header = ["benchmark", "median / value", "spread p25–p75", "target"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  const ruler = widths.map((width) => "-".repeat(width)).join("  ");
  return [line(header), ruler, ...rows.map((row) => (row[1] === "" ? row[0] ?? "" : line(row)))].join("\n");
}
