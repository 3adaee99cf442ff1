/** BENCHMARKS.md section 16 (governance): what the runtime's own steps add to a call, and a reading of the figures. */
import { GOVERNANCE_GROUP, GOVERNANCE_TARGET_MS } from "../governance/governance.ts";
import { formatNumber as n } from "../harness/format.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const governanceSection: Section = {
  title: "16. Governance: what taint and redaction add to a call",
  groups: [GOVERNANCE_GROUP],
  measured: () =>
    [
      "`runtime.execute` of a tool whose result is 50 kB (the runtime's own sources, with one of the app's secrets and",
      "one AWS key id among them), in process, no policy, no hooks, no results file, an audit sink: without the steps",
      "(the call's `redact: false`, no taint followed: the twin), with the redaction step (five app secrets, as",
      "bootstrap hands them in, and the ten key formats), and with redaction in a runtime that follows the taint (the tool",
      "an untrusted source, the session tainted: each call judged against the taint, its provenance recorded), sampled in",
      "turns (10 rounds of 1,000 calls each), so that a change of load hits all alike; the added cost is the difference",
      "of the medians. Then the redaction step alone, `Redactor.redact` on the same text (batched by mitata).",
      "`bun run --cwd bench governance` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(GOVERNANCE_GROUP, name);
    const added = "added by taint and redaction (medians' difference)";
    const paragraphs = [
      `Taint and redaction together add ${n(value(added))} ms to a call with a 50 kB result (${n(value("runtime.execute, redaction on, an untrusted source in a tainted session"))} ms against ${n(value("runtime.execute, redaction off, no taint (the twin)"))} ms; target ≤ ${GOVERNANCE_TARGET_MS} ms), of which redaction ${n(value("added by redaction (medians' difference)"))} ms; the redaction step alone takes ${n(value("the redaction step alone"))} ms. The taint's share is a set lookup and a map read per call, and a field on the audit record. The text is read in three passes: the app's values as one alternation (the regular-expression engine scans for it at memory speed), PEM blocks (anchored on their dashes), and the runs of letters, digits, \`_\` and \`-\` long enough to be a key — found by looking at every 15th character only, since a run that long covers one — each tried against the nine token formats at once. One alternation of every format over the whole text, the first design, is tried at every character: it took 0.3 ms on this text. A result with no secret is returned as it is: nothing is copied.`,
    ];
    const redacting = index.find(GOVERNANCE_GROUP, "runtime.execute, redaction on")?.spread;
    const step = value("the redaction step alone");
    // Most of what redaction adds is not the step: said with the figures that show it, when they do.
    if (redacting !== undefined && value("added by redaction (medians' difference)") > 3 * step) {
      paragraphs.push(
        `Most of what redaction adds is not the redaction step (${n(step)} ms) but what a redacted result is: a new string at each call, where the twin returns its one string every time. The first to read it whole is the audit record's byte count (\`resultBytes\`, \`Buffer.byteLength\`), which is where a profile of this suite puts the time; on this machine the first read of a new 50 kB string costs either a few microseconds or about a quarter of a millisecond, most likely by whether its memory must be faulted in fresh (a page fault costs about 10 µs here), as the redacted calls show (the fastest took ${n(redacting.min)} ms, the median ${n(value("runtime.execute, redaction on"))} ms). Which one a call gets depends on the process's allocator, not on the text: called from a script that loads nothing else, the same calls add about 0.04 ms. A twin that returned a new string at each call, as a real tool does, would pay it too; the figure then stops measuring redaction and measures the allocator, so the twin is kept as it is and the cause is said here.`,
      );
    }
    if (index.missed(GOVERNANCE_GROUP, added)) paragraphs.push(`**Missed: ${added} within ${GOVERNANCE_TARGET_MS} ms**: ${n(value(added))} ms.`);
    return paragraphs;
  },
};

export const GOVERNANCE_SECTIONS: readonly Section[] = [governanceSection];
