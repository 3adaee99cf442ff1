/**
 * What a command's words say about the rule "always for commands like this" may offer: which
 * programs take a subcommand (`git log`, `npm install`), which run a script named next
 * (`python build.py`), and which commands destroy or overwrite what they touch (`rm`,
 * `git push --force`), for which only the exact command is offered.
 */

/**
 * Programs whose second word names what they do, each a different action: `git log` and
 * `git push`, `npm test` and `npm publish`. A runner's package (`npx prettier`) and a build
 * tool's target or task (`make test`, `mvn package`, `just lint`) count as subcommands too:
 * each runs its own code, and `make *` would allow every recipe of the project.
 */
const SUBCOMMANDS = new Set([
  "apt",
  "apt-get",
  "aws",
  "az",
  "brew",
  "bun",
  "bundle",
  "bunx",
  "cargo",
  "composer",
  "conda",
  "dart",
  "deno",
  "docker",
  "docker-compose",
  "dotnet",
  "flatpak",
  "flutter",
  "gcloud",
  "gem",
  "gh",
  "git",
  "go",
  "gradle",
  "helm",
  "hg",
  "just",
  "kubectl",
  "make",
  "mvn",
  "nix",
  "npm",
  "npx",
  "pip",
  "pip3",
  "pipx",
  "pnpm",
  "podman",
  "poetry",
  "rustup",
  "snap",
  "svn",
  "swift",
  "systemctl",
  "terraform",
  "uv",
  "uvx",
  "yarn",
]);

/** Interpreters: what they run is the script named next (`python build.py` → `python build.py *`); run as `-c CODE`, only the exact command. */
const INTERPRETERS = new Set(["bash", "node", "perl", "php", "python", "python3", "ruby", "sh", "zsh"]);

/** Commands that remove, overwrite, stop or run anything as another user, whatever their arguments. */
const DESTRUCTIVE = new Set([
  "chgrp",
  "chmod",
  "chown",
  "dd",
  "doas",
  "fdisk",
  "halt",
  "kill",
  "killall",
  "mkfs",
  "mv",
  "parted",
  "pkill",
  "poweroff",
  "reboot",
  "rm",
  "rmdir",
  "shred",
  "shutdown",
  "srm",
  "su",
  "sudo",
  "truncate",
  "unlink",
  "wipefs",
]);

/** Subcommands that destroy, by program (`docker rm`, `kubectl delete`), and the options that make another destructive (`git push --force`). */
const DESTRUCTIVE_USES: Readonly<Record<string, (args: readonly string[]) => boolean>> = {
  git: gitDestroys,
  find: (args) => args.some((arg) => ["-delete", "-exec", "-execdir", "-ok", "-okdir"].includes(arg)),
  rsync: (args) => args.some((arg) => arg.startsWith("--delete") || arg === "--remove-source-files"),
  docker: (args) => args.some((arg) => ["rm", "rmi", "kill", "prune", "down"].includes(arg)),
  podman: (args) => args.some((arg) => ["rm", "rmi", "kill", "prune"].includes(arg)),
  "docker-compose": (args) => args.some((arg) => ["rm", "down", "kill"].includes(arg)),
  kubectl: (args) => args.some((arg) => ["delete", "drain", "replace"].includes(arg)),
  helm: (args) => args.some((arg) => ["uninstall", "delete", "rollback"].includes(arg)),
  terraform: (args) => args.some((arg) => ["destroy", "-destroy", "taint"].includes(arg)),
  npm: (args) => args.some((arg) => ["unpublish", "deprecate"].includes(arg)),
  gh: (args) => args.includes("delete"),
  systemctl: (args) => args.some((arg) => ["stop", "disable", "mask", "kill", "poweroff", "reboot", "halt"].includes(arg)),
  crontab: (args) => args.includes("-r"),
};

/** Whether the command (its words as rules match them) destroys or overwrites: such a command is offered only exactly. */
export function isDestructive(words: readonly string[]): boolean {
  const [name = "", ...args] = words;
  if (DESTRUCTIVE.has(name) || name.startsWith("mkfs.")) return true;
  return DESTRUCTIVE_USES[name]?.(args) ?? false;
}

/** Whether the program's second word is a subcommand (`git`, `npm`, `make`, …). */
export function takesSubcommand(name: string): boolean {
  return SUBCOMMANDS.has(name);
}

/** Whether the program runs the script its second word names (`python`, `node`, `sh`, …). */
export function runsScript(name: string): boolean {
  return INTERPRETERS.has(name);
}

/** History rewritten or work thrown away: a forced or deleting push, `reset --hard`, `clean`, a branch deleted, changes discarded. */
function gitDestroys(args: readonly string[]): boolean {
  // A global option first (`git -C dir push`) leaves no subcommand to offer: the offer is exact anyway.
  const [sub, ...rest] = args;
  const has = (...options: string[]) => rest.some((arg) => options.includes(arg));
  switch (sub) {
    case "push":
      return has("-f", "--force", "--force-with-lease", "--mirror", "-d", "--delete", "--prune") || rest.some((arg) => arg.startsWith("+") || arg.startsWith(":") || arg.startsWith("--force"));
    case "reset":
      return has("--hard", "--merge", "--keep");
    case "branch":
      return has("-D", "-d", "--delete", "-M", "-m", "-C", "--force", "-f");
    case "checkout":
    case "switch":
      return has("--", ".", "-f", "--force", "--discard-changes", "-B", "-C");
    case "stash":
      return has("drop", "clear");
    case "tag":
      return has("-d", "--delete", "-f", "--force");
    case "clean":
    case "restore":
    case "filter-branch":
    case "filter-repo":
    case "update-ref":
    case "reflog":
    case "gc":
    case "prune":
      return true;
    default:
      return false;
  }
}
