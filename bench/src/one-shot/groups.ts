/** The one-shot suite's groups of figures, as every report names them. */

/** One confined command, whole process: Plugboard against Codex's and Anthropic's sandboxes. */
export const ONE_SHOT_GROUP = "One confined command, against Codex's and Anthropic's sandboxes";
/** Plugboard's run of it, stage by stage, from its trace. */
export const STAGES_GROUP = "One confined command: plugboard call bash, stage by stage";

/** Every group of the suite, in the report's order. */
export const ONE_SHOT_GROUPS = [ONE_SHOT_GROUP, STAGES_GROUP] as const;
