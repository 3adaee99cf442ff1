/** BENCHMARKS.md section 3 (parallel tool calls): what exactly is measured, and a reading. */
import { formatNumber as n } from "../harness/format.ts";
import { LATENCY_MS, PARALLEL_GROUP, WIDTH } from "../parallel/parallel.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

export const parallelSection: Section = {
  title: "3. Parallel tool calls",
  groups: [PARALLEL_GROUP],
  measured: () =>
    [
      `One turn through \`runAgentLoop\` over HTTP to the scripted server: the first answer proposes ${WIDTH} calls of a`,
      `read-only tool that waits ${LATENCY_MS} ms (\`slow_read\`, defined in the bench with \`concurrency: "read-only"\`, a stand-in`,
      "for a slow read), the second answers; against the same turn with one such call. Then two `edit_file` calls (the",
      "real plugin, whose calls are keyed by the path they write) in one answer: on one file, where the second edit",
      "replaces the text the first one wrote, so it succeeds only when they run in the order of the calls; and on two",
      "files, which may overlap. Each turn gets a fresh server; the contenders are taken in turn, one untimed run each first.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const g = PARALLEL_GROUP;
    const wide = index.value(g, `${WIDTH} reads of`);
    const one = index.value(g, "1 read of");
    const inOrder = index.find(g, "turns whose two edits");
    const paragraphs = [
      `${WIDTH} reads of ${LATENCY_MS} ms take ${n(wide)} ms in one turn against ${n(one)} ms for one (${n(wide / one)}×; in series they would take at least ${WIDTH * LATENCY_MS} ms): the loop runs the calls of read-only tools together and sends their results back in the order of the calls. Two edits of one file ${inOrder?.met ? "applied in the order of the calls in every turn" : "did **not** always apply in order"} (${inOrder?.note ?? ""}): a tool whose calls write names what they write, and calls naming the same path wait for each other.`,
    ];
    if (index.missed(g, `${WIDTH} reads / 1 read`)) {
      paragraphs.push(`**Missed: ${WIDTH} reads within 1.5× of one**: ${n(wide / one)}×.`);
    }
    return paragraphs;
  },
};
