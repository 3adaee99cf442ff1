/**
 * The description scan at pinning (bootstrap's description-scan.ts): what reading one tool's
 * description and its parameters' costs, for a typical mounted tool and for one as long as a
 * description may be before it is flagged, with 500 other tools whose names it must not reach for.
 */
import { scanTool } from "@plugboard/bootstrap";
import { type FigureLog, meets, type Target } from "../harness/figures.ts";
import { timeFast, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";

/** The group's name in every report. */
export const DESCRIPTION_SCAN_GROUP = "Description scan at pinning";

/** The most one description's scan may take, in ms. */
const TARGET: Target = { op: "<=", limit: 0.05 };

/** The names of 500 other tools, as a few mounted servers would list them (plain words among them). */
const OTHERS = new Set([...Array.from({ length: 496 }, (_, index) => `github_list_records_${index}`), "bash", "fetch", "search", "read_file"]);

/** A mounted server's tool as servers write them: a paragraph, and three described parameters. */
const TYPICAL = {
  name: "search_issues",
  description:
    "Search issues and pull requests across repositories with GitHub's search syntax. Returns up to 30 results per page with " +
    "their number, title, state, labels and author; use page to read further. Results are sorted by best match unless sort is set.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "The search query, such as `repo:owner/name is:open label:bug`." },
      sort: { type: "string", description: "comments, reactions, created or updated; best match when absent." },
      page: { type: "number", description: "The page of results, from 1." },
    },
  },
};

/** A description of exactly 2,000 characters (the longest not flagged for its length): the words repeated. */
const LONGEST = { name: "report", description: TYPICAL.description.repeat(10).slice(0, 2000), parameters: TYPICAL.parameters };

/** The figures' names. */
export const SCAN_FIGURES = {
  typical: `one description scanned, a typical tool (${TYPICAL.description.length} characters, 3 described parameters)`,
  longest: "one description scanned, a 2,000-character description (3 described parameters)",
} as const;

/** Measures the scan of one typical description and of one of 2,000 characters. */
export async function descriptionScan(mode: RunMode, log: FigureLog): Promise<void> {
  for (const [name, tool] of [
    [SCAN_FIGURES.typical, TYPICAL],
    [SCAN_FIGURES.longest, LONGEST],
  ] as const) {
    mode.progress(`description scan: ${name}`);
    const timing = await timeFast(() => scanTool(tool, OTHERS), mode.quick ? 200 : 1000);
    const figure = timingFigure(DESCRIPTION_SCAN_GROUP, name, timing, "ms", 1e6, "with 500 other tools' names");
    log.add({ ...figure, target: TARGET, met: meets(figure.value, TARGET) });
  }
}
