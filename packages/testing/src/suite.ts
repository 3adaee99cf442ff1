/**
 * `@plugboard/testing/suite`: the conformance checks as `bun:test` tests, one per check, for
 * a plugin's own test files to run first. Kept out of the main entry so that importing
 * `@plugboard/testing` never loads `bun:test`.
 */
import { beforeAll, describe, test } from "bun:test";
import { type CheckPluginOptions, checkPlugin } from "./check-plugin.ts";
import { CHECK_IDS, CHECKS, type ConformanceReport } from "./checks.ts";
import { formatCheck } from "./report.ts";

/**
 * Registers a `describe` block with one test per conformance check of the plugin in
 * `directory` (its package root). A test fails with the check's problems and fix; a warning
 * or a skip passes.
 *
 * @example
 * import { join } from "node:path";
 * import { conformanceSuite } from "@plugboard/testing/suite";
 *
 * conformanceSuite(join(import.meta.dir, ".."));
 */
export function conformanceSuite(directory: string, options: CheckPluginOptions = {}): void {
  describe("Plugboard conformance", () => {
    let report: ConformanceReport | undefined;
    beforeAll(async () => {
      report = await checkPlugin(directory, options);
    }, 180_000);
    for (const id of CHECK_IDS) {
      test(CHECKS[id].title, () => {
        const check = report?.checks.find((candidate) => candidate.id === id);
        if (check === undefined) throw new Error(`the conformance check "${id}" did not run`);
        if (check.status === "fail") throw new Error(formatCheck(check).join("\n"));
      });
    }
  });
}
