/**
 * What an app with confined plugins or servers loads, and only then: the hosts, loaded while
 * the plugins are resolved; and what the first confined start needs besides (the protected
 * paths, the protected code, the walk of the workspace) with the after-call look for what
 * calls leave behind, required at that start: an app that starts none (`plugboard tools`
 * mounting every host from the listing cache) loads none of it.
 */
import { lazily, lazilySync } from "@plugboard/core/internal";

export interface ConfinementModules {
  readonly startConfinedHost: typeof import("@plugboard/hosts/confined").startConfinedHost;
}

export interface ProtectionModules {
  readonly protectedPaths: typeof import("@plugboard/sandbox/protected-paths").protectedPaths;
  readonly grantedRootPaths: typeof import("@plugboard/sandbox/protected-paths").grantedRootPaths;
  readonly codeProtections: typeof import("@plugboard/sandbox/code-protection").codeProtections;
  readonly LeftoverWatch: typeof import("@plugboard/sandbox/leftovers").LeftoverWatch;
  readonly WorkspaceWalker: typeof import("@plugboard/sandbox/workspace-scan").WorkspaceWalker;
}

/** The confinement's hosts, loaded while the plugins are resolved, when something may run confined. */
export async function confinementModules(): Promise<ConfinementModules> {
  const { startConfinedHost } = await lazily("the confined plugin hosts", () => import("@plugboard/hosts/confined"));
  return { startConfinedHost };
}

/**
 * The protections' modules, required (synchronously: a host's start asks for the protected
 * paths as it is made) at the first confined start. The protected paths are computed at each
 * host or server start, so that one created since the app started (`.git/hooks/` made, the
 * audit log created) is protected from the next start on.
 */
export function protectionModules(): ProtectionModules {
  const { protectedPaths, grantedRootPaths } = lazilySync("the protected paths", () => require("@plugboard/sandbox/protected-paths") as typeof import("@plugboard/sandbox/protected-paths"));
  const { codeProtections } = lazilySync("the protected code", () => require("@plugboard/sandbox/code-protection") as typeof import("@plugboard/sandbox/code-protection"));
  const { LeftoverWatch } = lazilySync("the after-call look for what calls leave behind", () => require("@plugboard/sandbox/leftovers") as typeof import("@plugboard/sandbox/leftovers"));
  const { WorkspaceWalker } = lazilySync("the walk for repositories and other tools' files", () => require("@plugboard/sandbox/workspace-scan") as typeof import("@plugboard/sandbox/workspace-scan"));
  return { protectedPaths, grantedRootPaths, codeProtections, LeftoverWatch, WorkspaceWalker };
}
