/** A section of BENCHMARKS.md: its groups of figures, what they measure and how to read them. */
import type { Environment } from "./environment.ts";
import type { FigureIndex } from "./lookup.ts";

export interface Section {
  readonly title: string;
  /** The figure groups shown in the section's table, in order. */
  readonly groups: readonly string[];
  /** What exactly is measured, in one paragraph. */
  readonly measured: (env: Environment) => string;
  /** Paragraphs reading the figures: for a missed target, by how much, why and what would close it. */
  readonly reading: (index: FigureIndex, env: Environment) => string[];
}
