export { PRIVATE_FOLDERS, type ProtectedPath } from "./build-view.ts";
export { type CodeClosure, codeClosure } from "./package-closure.ts";
export { CONFINE_PROGRAM, type ConfinedCommand, type ConfineOptions, confineCommand } from "./launcher.ts";
export { type LandlockRules, landlockAbi, restrictSelf } from "./landlock.ts";
export { DISABLE_VARIABLE, detectMechanism, detectMechanismAsync, type Mechanism } from "./mechanism.ts";
export { type Egress, openEgress } from "./egress.ts";
export { CHANNEL_FD, EGRESS_PORT } from "./egress-channel.ts";
export { type EgressProxy, type EgressProxyOptions, type EgressRecord, hostAndPort, refusalText, serveEgressProxy } from "./egress-proxy.ts";
export { patternProblem } from "./egress-rules.ts";
