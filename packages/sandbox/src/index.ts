/**
 * `@plugboard/sandbox`: everything a grant means. The mechanism and the confinement of a
 * process (its view, Landlock, seccomp, namespaces, limits, the egress proxy), what it is
 * told it may not write (the protected paths, the planted start-up files), what a refusal
 * tells the model and the person, and the confinement of stdio MCP servers. The modules an
 * app loads only when it confines (the protected paths, the refusal hints, what a call leaves
 * behind, the MCP servers' confinement) are subpath exports of their own.
 */
export { PRIVATE_FOLDERS, type ProtectedPath } from "./view/build-view.ts";
export { type CodeClosure, codeClosure } from "./view/package-closure.ts";
export { type AheadConfinedCommand, CONFINE_PROGRAM, type ConfinedCommand, type ConfineOptions, confineAhead, confineCommand, type LaunchOptions, RULES_FD } from "./launcher.ts";
export { type LandlockRules, landlockAbi, restrictSelf } from "./kernel/landlock.ts";
export { type DetectOptions, DISABLE_VARIABLE, detectMechanism, detectMechanismAsync, detectMechanismWhenAsked, type Mechanism } from "./mechanism.ts";
export { detectSandbox, type SandboxMode, type SandboxSettings, type SandboxState, sandboxState } from "./sandbox-mode.ts";
export { PERMISSION_EFFECTS } from "./grants.ts";
export { type Egress, openEgress } from "./network/egress.ts";
export { CHANNEL_FD, EGRESS_PORT } from "./network/egress-channel.ts";
export { type EgressProxy, type EgressProxyOptions, type EgressRecord, refusalText, serveEgressProxy } from "./network/egress-proxy.ts";
export { hostAndPort, patternProblem } from "./network/egress-rules.ts";
export { type CgroupSupport, type Controller, cgroupSupport } from "./limits/cgroups.ts";
export { DEFAULT_LIMITS, formatSize, type Limits, parseSize } from "./limits/limits.ts";
export { type LimitsInForce, limitsInForce, type TreeLimits } from "./limits/tree-limits.ts";
