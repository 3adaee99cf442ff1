export { PRIVATE_FOLDERS, type ProtectedPath } from "./build-view.ts";
export { CONFINE_PROGRAM, type ConfinedCommand, type ConfineOptions, confineCommand } from "./launcher.ts";
export { type LandlockRules, landlockAbi, restrictSelf } from "./landlock.ts";
export { DISABLE_VARIABLE, detectMechanism, detectMechanismAsync, type Mechanism } from "./mechanism.ts";
