/** Number formatting shared by the table and BENCHMARKS.md. */
import { describeTarget, type Figure, missedBy } from "./figures.ts";

/** Three significant digits, without exponent notation; thousands keep every digit; "—" for a figure not measured. */
export function formatNumber(value: number): string {
  // A figure not measured is NaN, and null once read back from latest.json.
  if (value === null || Number.isNaN(value)) return "—";
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString("en-US");
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/** The figure's value with its unit: `812 µs/step`, `1.02×`. */
export function formatValue(figure: Figure): string {
  const number = formatNumber(figure.value);
  return figure.unit === "×" ? `${number}×` : `${number} ${figure.unit}`;
}

/** `p25–p75 (n = 10)` for a measurement, empty otherwise. */
export function formatSpread(figure: Figure): string {
  const spread = figure.spread;
  if (!spread) return "";
  return `${formatNumber(spread.p25)}–${formatNumber(spread.p75)} (n = ${spread.samples})`;
}

/** `≤ 1.5× ✓`, `< 1× ✗ (missed by 12%)`, or empty for a figure without target. */
export function formatVerdict(figure: Figure): string {
  if (!figure.target) return "";
  if (figure.met) return `${describeTarget(figure.target, figure.unit)} met`;
  const over = missedBy(figure.value, figure.target);
  return `${describeTarget(figure.target, figure.unit)} MISSED by ${formatNumber(over)}%`;
}
