/** BENCHMARKS.md section 13 (a plugin author's install): what exactly is measured, and a reading of the figures. */
import { AUTHOR_INSTALL_GROUP, GOAL } from "../author-install/author-install.ts";
import { formatNumber as n } from "../harness/format.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const authorInstallSection: Section = {
  title: "13. A plugin author's install",
  groups: [AUTHOR_INSTALL_GROUP],
  measured: () =>
    [
      "The packages of ours a fresh `plugboard plugin new` scaffold lists, and every one of ours they need, are published",
      "to a local registry (Verdaccio, started as the release test starts it: `packages/release/test/verdaccio.ts`;",
      "other packages are proxied from npm); the scaffold is installed from it with `bun install`, with a fresh HOME",
      "and package cache. Counted: the packages its dependencies, devDependencies and peerDependencies bring, each",
      "found as Node finds it, besides the author's own build tools the scaffold lists (typescript and bun-types, and",
      "what they bring); their size is the apparent size of their files. The whole `node_modules` is shown too.",
      "Sizes and counts: they do not depend on the machine. `bun run --cwd bench author-install` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(AUTHOR_INSTALL_GROUP, name);
    const packages = value("packages installed");
    const megabytes = value("their files");
    const met = packages <= GOAL.packages && megabytes <= GOAL.megabytes;
    return [
      `A plugin author's \`bun install\` brings ${packages} packages and ${n(megabytes)} MB besides typescript and bun-types (${index.find(AUTHOR_INSTALL_GROUP, "packages installed")?.note ?? ""}): ${met ? "within" : "**over**"} the goal of at most ${GOAL.packages} packages and ${GOAL.megabytes} MB (DESIGN.md, "packages by audience and by stage"). The kit, \`@plugboard/testing\`, needs core (and the scripted model it offers authors): it runs a plugin through the contract in its own process and, for the confined run, through the \`plugboard\` it finds, so the app's packages (bootstrap, sandbox, hosts, the model client) are never installed for a plugin's tests. While the kit ran plugins through the app's bootstrap, the same install brought 40 packages and 78.8 MB.`,
    ];
  },
};

/** Section 13. */
export const AUTHOR_INSTALL_SECTIONS: readonly Section[] = [authorInstallSection];
