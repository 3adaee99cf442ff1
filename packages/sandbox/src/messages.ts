/**
 * The messages a person sees from the sandbox, each a `PlugboardError` with a stable code: a
 * config that requires a mechanism this system lacks, a start-up file a confined plugin may
 * have planted, and a file to trust that does not exist. (What the model reads of a refusal
 * is the refusal hints'.)
 */
import { PlugboardError } from "@plugboard/errors";

/** How a start-up file (or a link on its way) came to be while confined plugins could write the workspace holding it. */
export interface PlantedChange {
  /** The link on the way that was made or changed; none: the file itself. */
  readonly link: string | undefined;
  /** Made within the span (where the file system keeps birth times); else only known to have changed. */
  readonly created: boolean;
  /** When (ms since the epoch). */
  readonly at: number;
  /** The workspace confined plugins could write. */
  readonly workspace: string;
}

export const sandboxErrors = {
  unavailable: (configPath: string, missing: string) =>
    new PlugboardError(
      "SANDBOX_UNAVAILABLE",
      `The config requires the sandbox ("sandbox": "required" in ${configPath}), but this system lacks ${missing}.\n` +
        `Run Plugboard on a Linux kernel with Landlock, seccomp filters and unprivileged user namespaces, or set "sandbox": "auto" to run plugins unconfined there.`,
    ),
  planted: (path: string, what: string, change: PlantedChange) => {
    const writable = `while plugins could write ${change.workspace}`;
    const looked = "plugboard does not read it until you have looked at it.";
    const at = new Date(change.at).toISOString();
    const first =
      change.link !== undefined
        ? `${path} (${what}) is reached through the link ${change.link}, which was ${change.created ? "made" : "changed"} at ${at}, ${writable}, so a plugin may have pointed it there (or it is your own change, made while they could); ${looked}`
        : change.created
          ? `${path} (${what}) was created at ${at}, ${writable}, so a plugin may have written it; ${looked}`
          : `${path} (${what}) was changed at ${at} (written, renamed, linked or its mode changed), ${writable}, so a plugin may have changed it (or it is your own edit, made while they could); ${looked}`;
    return new PlugboardError("PLANTED_FILE", `${first}\nRead it: if it is yours, run plugboard trust ${path}; if not, delete it.`);
  },
  stateFolder: (folder: string, file: string, variable: "XDG_STATE_HOME" | "HOME") =>
    new PlugboardError(
      "STATE_FOLDER",
      `Plugboard's state folder ${folder} cannot be made: ${file} is a file, not a folder.\n` +
        (variable === "XDG_STATE_HOME"
          ? "Set XDG_STATE_HOME to a folder you can write (or unset it to use ~/.local/state)."
          : "Set XDG_STATE_HOME to a folder you can write, or HOME to your home folder."),
    ),
  nothingToTrust: (path: string) => new PlugboardError("USAGE", `${path} does not exist: there is nothing to trust.`),
} as const;
