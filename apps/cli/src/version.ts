/** What `plugboard --version` prints: the CLI's version and the contract version of its core. */
import { CONTRACT_VERSION } from "@plugboard/core";
import packageJson from "../package.json" with { type: "json" };

/** `plugboard 0.1.0 (contract 1.2.0)`. */
export function versionLine(): string {
  return `plugboard ${packageJson.version} (contract ${CONTRACT_VERSION})`;
}
