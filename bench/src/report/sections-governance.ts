/** BENCHMARKS.md section 15 (governance): what the runtime's own steps add to a call, and a reading of the figures. */
import { GOVERNANCE_GROUP, REDACTION_TARGET_MS } from "../governance/governance.ts";
import { formatNumber as n } from "../harness/format.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const governanceSection: Section = {
  title: "15. Governance: what a call's own steps add",
  groups: [GOVERNANCE_GROUP],
  measured: () =>
    [
      "`runtime.execute` of a tool whose result is 50 kB (the runtime's own sources, with one of the app's secrets and",
      "one AWS key id among them), in process, no policy, no hooks, no results file: once with the redaction step (five",
      "app secrets, as bootstrap hands them in, and the ten key formats), once without it (the same runtime, the call's \`redact: false\`: the twin),",
      "sampled in turns (10 rounds of 1,000 calls each), so that a change of load hits both alike; the added cost is the",
      "difference of the medians. Then the step alone, `Redactor.redact` on the same text (batched by mitata).",
      "`bun run --cwd bench governance` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(GOVERNANCE_GROUP, name);
    const paragraphs = [
      `Redaction adds ${n(value("added by redaction (medians' difference)"))} ms to a call with a 50 kB result (${n(value("runtime.execute, redaction on"))} ms against ${n(value("runtime.execute, redaction off (the twin)"))} ms); the step alone takes ${n(value("the redaction step alone"))} ms (target ≤ ${REDACTION_TARGET_MS} ms). The text is read in three passes: the app's values as one alternation (the regular-expression engine scans for it at memory speed), PEM blocks (anchored on their dashes), and the runs of letters, digits, \`_\` and \`-\` long enough to be a key — found by looking at every 15th character only, since a run that long covers one — each tried against the nine token formats at once. One alternation of every format over the whole text, the first design, is tried at every character: it took 0.3 ms on this text. A result with no secret is returned as it is: nothing is copied.`,
    ];
    for (const name of ["added by redaction (medians' difference)", "the redaction step alone"]) {
      if (index.missed(GOVERNANCE_GROUP, name)) paragraphs.push(`**Missed: ${name} within ${REDACTION_TARGET_MS} ms**: ${n(value(name))} ms.`);
    }
    return paragraphs;
  },
};

export const GOVERNANCE_SECTIONS: readonly Section[] = [governanceSection];
