/** A conformance report as text for a person: one line per check, then what is wrong and how to fix it. */
import type { CheckResult, CheckStatus, ConformanceReport } from "./checks.ts";

const MARKS: Readonly<Record<CheckStatus, string>> = { pass: "✓", warn: "!", fail: "✗", skip: "-" };

/**
 * The report as lines of text: `✓` passed, `!` passed with warnings, `✗` failed (with each
 * problem and a `fix:` line), `-` skipped; a summary line last.
 *
 * @example console.error(formatReport(await checkPlugin(".")));
 */
export function formatReport(report: ConformanceReport): string {
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const check of report.checks) counts[check.status] += 1;
  const summary = [
    `${counts.pass} passed`,
    ...(counts.warn > 0 ? [`${counts.warn} with warnings`] : []),
    ...(counts.fail > 0 ? [`${counts.fail} failed`] : []),
    ...(counts.skip > 0 ? [`${counts.skip} skipped`] : []),
  ].join(", ");
  return [
    `Conformance of ${report.plugin ?? "the plugin"} (${report.directory}):`,
    ...report.checks.flatMap(formatCheck),
    `${summary}.`,
  ].join("\n");
}

/** One check: its mark and title, then its problems, fix and notes, indented. */
export function formatCheck(check: CheckResult): string[] {
  const lines = [`${MARKS[check.status]} ${check.title}${check.status === "skip" ? " (skipped)" : ""}`];
  for (const problem of check.problems) lines.push(`    ${problem}`);
  if (check.fix !== undefined) lines.push(`    fix: ${check.fix}`);
  for (const note of check.notes) lines.push(`    note: ${note}`);
  return lines;
}
