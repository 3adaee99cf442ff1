/** BENCHMARKS.md section 15 (the description scan at pinning): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { DESCRIPTION_SCAN_GROUP, SCAN_FIGURES } from "../description-scan/description-scan.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const { typical: TYPICAL, longest: LONGEST } = SCAN_FIGURES;

const descriptionScanSection: Section = {
  title: "15. The description scan at pinning",
  groups: [DESCRIPTION_SCAN_GROUP],
  measured: () =>
    [
      "bootstrap's `scanTool` over one tool — its description and its three parameters' descriptions — as pinning reads",
      "each new or changed tool of a mounted server or third-party plugin before it is trusted, with the names of 500 other",
      "tools it must not reach for (batched by mitata): a typical mounted tool's paragraph, and a description of exactly",
      "2,000 characters, the longest not flagged for its length.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const paragraphs = [
      `One description is read in ${n(index.value(DESCRIPTION_SCAN_GROUP, TYPICAL))} ms, a 2,000-character one in ${n(index.value(DESCRIPTION_SCAN_GROUP, LONGEST))} ms (target ≤ 0.05 ms each): a handful of regular expressions over the text, and a look-up of the few words that could be tool names, once per tool that is new or changed — an unchanged pinned tool is not read again.`,
    ];
    for (const name of [TYPICAL, LONGEST]) if (index.missed(DESCRIPTION_SCAN_GROUP, name)) paragraphs.push(`**Missed: ${name} within 0.05 ms.**`);
    return paragraphs;
  },
};

/** Section 15. */
export const DESCRIPTION_SCAN_SECTIONS: readonly Section[] = [descriptionScanSection];
