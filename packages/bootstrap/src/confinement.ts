/**
 * What an app's confined sources share, made before any of them starts: the mechanism and the
 * confinement's modules, the protected paths (found again at each start), the results folder
 * and the lock made beforehand (a confined plugin cannot write them for the person), the span
 * during which confined processes may write the workspace (from the first start of one, or
 * the app's warm-up, until the app closes), and where what they do is recorded (connections,
 * refusals, what calls leave behind, the audit log once it is open).
 */
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { isWithin } from "@plugboard/sandbox/view";
import { existingGrants, reservedFolders } from "@plugboard/sandbox/granted-paths";
import { prepareResultsFolder, ResultsFolderError } from "@plugboard/core";
import { trace } from "@plugboard/core/trace";
import { ensureLock, lockFileOf } from "@plugboard/config/lock-file";
import { beginWritableSpan, plantedRecordFile } from "@plugboard/sandbox/planted-files";
import type { ConfinedHost, HostContext } from "@plugboard/hosts/confined";
import type { LeftoverHandler, LeftoverWatch } from "@plugboard/sandbox/leftovers";
import type { WorkspaceWalker } from "@plugboard/sandbox/workspace-scan";
import { listingCacheFolder } from "@plugboard/hosts/listing-cache";
import { NetworkRefusals } from "@plugboard/sandbox/network-refusals";
import { forgetNamespaces, type SandboxState } from "@plugboard/sandbox/sandbox-mode";
import type { EgressRecord, ProtectedPath } from "@plugboard/sandbox";
import type { AuditLog } from "./audit-log.ts";
import { saveGrant } from "./saved-grants.ts";
import { type ConfinementModules, confinementModules, type ProtectionModules, protectionModules } from "./confinement-modules.ts";
import type { Plan } from "./plan.ts";

/** The confinement of one app. */
export interface Confinement {
  readonly mechanism: NonNullable<SandboxState["mechanism"]>;
  readonly modules: ConfinementModules;
  /** What every confined host runs with and reports to. */
  readonly hosts: HostContext;
  /**
   * The paths no confined process may write, as they are now: asked right before each
   * confined process (a plugin's host, a server) starts, so the first ask also begins the
   * span during which confined processes may write the workspace (`writable`).
   */
  protect(): readonly ProtectedPath[];
  /**
   * Begins, unless it has, the span during which confined processes may write the workspace
   * (recorded for the planted-files check): at the first confined start, or when the app
   * warms its sources up. An app that starts none (`plugboard tools` mounting every host from
   * the listing cache) records none: no process of a plugin could write meanwhile.
   */
  writable(): void;
  readonly refusals: NetworkRefusals;
  /** Told of each connection an egress proxy was asked for: kept for the refusal hints, recorded in the audit log. */
  readonly onConnection: (record: EgressRecord) => void;
  /** The hosts whose views are made again when a call left something behind (every host's, then). */
  refreshing(hosts: readonly ConfinedHost[]): void;
  /** Records go to `log` from now on, those made before it first. */
  recordTo(log: AuditLog | undefined): void;
  /** Ends the span during which confined processes may write the workspace (safe to call twice). */
  end(): void;
}

/** The confinement of `plan`'s app, or none when nothing can run confined (no mechanism). */
export async function prepareConfinement(plan: Plan): Promise<Confinement | undefined> {
  const { config, options, workspace, writers } = plan;
  const { mechanism } = plan.sandbox;
  if (mechanism === undefined) return undefined;
  const { logger, env } = options;
  const root = workspace.root;
  const modules = await (plan.modules ?? confinementModules());
  trace("app: confinement's modules loaded");
  // The protections' modules, required at the first confined start.
  let protection: ProtectionModules | undefined;
  const protections = () => (protection ??= protectionModules());
  // One walk of the workspace for repositories and other tools' files, kept: each host start and each after-call look reads only what changed.
  let walker: WorkspaceWalker | undefined;
  const walk = () => (walker ??= new (protections().WorkspaceWalker)(root, config.protectDepth));
  const cacheFolder = listingCacheFolder(env);
  // The app's own code and every enabled plugin's, found once (code does not move while the app runs), when any confined process may write.
  let code: readonly ProtectedPath[] | undefined;
  const codeFolders = [...(options.appFolder === undefined ? [] : [options.appFolder]), ...plan.found.map(({ directory }) => directory)];
  const closureCache = cacheFolder === undefined ? undefined : join(cacheFolder, "closures");
  // Each folder or file a `write` grant names holds the protections of a writable workspace (its walk kept likewise).
  const confinedEntries = [...plan.hostGroups.flat().map(({ entry }) => entry), ...plan.servers.flatMap(({ entry, confined }) => (confined ? [entry] : []))];
  const grantedPaths = existingGrants(confinedEntries.flatMap((entry) => entry.write ?? []));
  let granted: readonly { readonly path: string; readonly walker: WorkspaceWalker | undefined }[] | undefined;
  const grantedWalks = () =>
    (granted ??= grantedPaths.map((path) => ({
      path,
      walker: statSync(path).isDirectory() ? new (protections().WorkspaceWalker)(path, config.protectDepth) : undefined,
    })));
  let grantedCode: readonly ProtectedPath[] | undefined;
  const record = plantedRecordFile(env);
  if (writers) {
    // Made before any host starts, so that the sandbox keeps `.plugboard/` read-only and only its results/ writable.
    resultsFolder(root, (message) => logger.warn(message));
  }
  // The lock too, where a confined process could write beside the config: it cannot write a pin for the person.
  const besideConfig = grantedPaths.some((path) => isWithin(dirname(config.configPath), path));
  if ((writers || besideConfig) && plan.locks) await ensureLock(lockFileOf(config.configPath), record);
  // From the first confined start until the app closes, confined plugins may write the workspace, and each `write`
  // path: files that appear there meanwhile are suspect (a config or .env made in a write path as in the workspace).
  const writablePaths = [...(writers ? [root] : []), ...grantedPaths];
  let ends: (() => void)[] | undefined;
  let ended = false;
  const writable = () => {
    if (!ended && ends === undefined) ends = writablePaths.map((path) => beginWritableSpan(record, path, (message) => logger.warn(message)));
  };
  const end = () => {
    ended = true;
    for (const ending of ends ?? []) ending();
    ends = undefined;
  };
  const protect = () => {
    writable();
    const { codeProtections, grantedRootPaths, protectedPaths } = protections();
    code ??= writers ? codeProtections(codeFolders, root, closureCache) : [];
    grantedCode ??= grantedPaths.flatMap((path) => codeProtections(codeFolders, path, closureCache));
    const grants = grantedWalks().flatMap(({ path, walker: found }) => grantedRootPaths(path, found, config.hooks));
    return [...protectedPaths(config, root, cacheFolder, walk()), ...code, ...grants, ...grantedCode];
  };
  let audit: AuditLog | undefined;
  // A narrowed host's connections go to the audit log; those made before it opens (while a plugin loads) once it has.
  const early: EgressRecord[] | undefined = config.audit === undefined ? undefined : [];
  // And each refusal is kept a moment, for the hint at the end of the result of the call it was made in.
  const refusals = new NetworkRefusals();
  const onConnection = (connection: EgressRecord) => {
    refusals.record(connection);
    if (audit !== undefined) audit.connection(connection);
    else early?.push(connection);
  };
  let refreshed: readonly ConfinedHost[] = [];
  const onLeftovers: LeftoverHandler = (call, leftovers, line) => {
    logger.warn(line.replace(/^plugboard: /, ""));
    const ts = new Date().toISOString();
    for (const leftover of leftovers) audit?.leftover({ ts, event: "leftover", ...call, ...leftover });
    // Every host's view is made again before its next call: a path protected for one is protected for all.
    for (const host of refreshed) host.refresh();
  };
  // What confined plugins that may write the workspace leave behind is looked for after each of their calls, against the workspace as it is now.
  const watched = plan.hostGroups.flat().some(({ entry }) => entry.permissions.includes("fs.write"));
  // Made when the first call looks (after its host started, so after the workspace's first walk).
  let watch: LeftoverWatch | undefined;
  const leftovers = watched
    ? {
        get watch() {
          watch ??= new (protections().LeftoverWatch)(root, walk());
          return watch;
        },
        handle: onLeftovers,
      }
    : undefined;
  const listing = { cacheFolder, fresh: options.freshHosts === true };
  return {
    mechanism,
    modules,
    hosts: {
      workspace: root,
      logger,
      listing,
      protect,
      onConnection,
      limits: config.limits,
      refusals,
      leftovers,
      reserved: reservedFolders(env, options.appFolder),
      ...(options.hostPrograms === undefined ? {} : { programs: options.hostPrograms }),
      ...(plan.ahead === undefined ? {} : { ahead: plan.ahead }),
      namespacesRefused: () => forgetNamespaces(env),
      saveGrant: (plugin, grant) => saveGrant({ name: plugin.manifest.name, configPath: plugin.where.configPath, entry: plugin.entry }, grant, env, logger),
    },
    protect,
    writable,
    refusals,
    onConnection,
    refreshing(hosts) {
      refreshed = hosts;
    },
    recordTo(log) {
      audit = log;
      for (const connection of early?.splice(0) ?? []) log?.connection(connection);
    },
    end,
  };
}

/** `.plugboard/results/` made in the workspace; when it cannot be, large results say so to the model, and the person is warned now. */
function resultsFolder(root: string, warn: (message: string) => void): void {
  try {
    prepareResultsFolder(root);
  } catch (error) {
    if (!(error instanceof ResultsFolderError)) throw error;
    warn(`large results cannot be saved: ${error.message}`);
  }
}
