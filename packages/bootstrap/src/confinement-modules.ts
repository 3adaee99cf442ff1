/**
 * What an app with confined plugins or servers loads, and only then: the hosts, the protected
 * paths, the refusal hints, the after-call look for what calls leave behind, the walk of the
 * workspace and the confinement of MCP servers.
 */
import { lazily } from "@plugboard/core/internal";

export interface ConfinementModules {
  readonly startConfinedHost: typeof import("@plugboard/hosts/confined").startConfinedHost;
  readonly protectedPaths: typeof import("@plugboard/sandbox/protected-paths").protectedPaths;
  readonly grantedRootPaths: typeof import("@plugboard/sandbox/protected-paths").grantedRootPaths;
  readonly codeProtections: typeof import("@plugboard/sandbox/code-protection").codeProtections;
  readonly LeftoverWatch: typeof import("@plugboard/sandbox/leftovers").LeftoverWatch;
  readonly WorkspaceWalker: typeof import("@plugboard/sandbox/workspace-scan").WorkspaceWalker;
}

/**
 * The confinement's modules, loaded while the plugins are resolved, when something may run
 * confined: the protected paths are computed at each host or server start, so that one
 * created since the app started (`.git/hooks/` made, the audit log created) is protected from
 * the next start on.
 */
export async function confinementModules(): Promise<ConfinementModules> {
  const [{ startConfinedHost }, { protectedPaths, grantedRootPaths }, { codeProtections }, { LeftoverWatch }, { WorkspaceWalker }] = await Promise.all([
    lazily("the confined plugin hosts", () => import("@plugboard/hosts/confined")),
    lazily("the protected paths", () => import("@plugboard/sandbox/protected-paths")),
    lazily("the protected code", () => import("@plugboard/sandbox/code-protection")),
    lazily("the after-call look for what calls leave behind", () => import("@plugboard/sandbox/leftovers")),
    lazily("the walk for repositories and other tools' files", () => import("@plugboard/sandbox/workspace-scan")),
  ]);
  return { startConfinedHost, protectedPaths, grantedRootPaths, codeProtections, LeftoverWatch, WorkspaceWalker };
}
