/** BENCHMARKS.md section 15 (governance): what the session's taint adds to a call, and a reading. */
import { formatNumber as n } from "../harness/format.ts";
import { TAINT_GROUP } from "../governance/taint.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const taintSection: Section = {
  title: "16. Taint and redaction: what they add to a call",
  groups: [TAINT_GROUP],
  measured: () =>
    [
      "`runtime.execute` of one tool whose handler returns a 50 kB text, in the app's process (no host, no sandbox), with",
      "an audit sink, through a runtime that follows no tools and through one that names the tool an untrusted source and",
      "another a way out, its session already tainted: the tool looked up, the call judged against the session's taint,",
      "the result's provenance recorded (packages/runtime/src/taint.ts). Each batched by mitata, both warmed first, then in four",
      "rounds taken in turns, the order turning every round; each side's fastest round is shown, and the difference of the two medians is the taint's cost per call.",
      "`bun run --cwd bench governance` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const added = index.value(TAINT_GROUP, "added per call by the taint");
    const paragraphs = [
      `Following the taint adds ${n(added)} ms to a call of ${n(index.value(TAINT_GROUP, "runtime.execute, no tool followed"))} ms: two set lookups and a map's, whatever the result's size (the result is not read); on a shared machine the medians move by a few µs from round to round, so the difference is within that noise. The target, ≤ 0.2 ms, is for taint and redaction together.`,
    ];
    if (index.missed(TAINT_GROUP, "added per call by the taint")) paragraphs.push(`**Missed: the taint within 0.2 ms per call**: ${n(added)} ms.`);
    return paragraphs;
  },
};

/** Section 16. */
export const GOVERNANCE_SECTIONS: readonly Section[] = [taintSection];
