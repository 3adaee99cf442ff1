import { expect, test } from "bun:test";
import { join } from "node:path";
import { coreFolder, pidNamespacePrefix, underInit } from "./pid-namespace.ts";

test("pidNamespacePrefix tries a plain PID namespace first (a mapped root may not create user namespaces)", () => {
  const unshare = Bun.which("unshare");
  if (unshare === null) return expect(pidNamespacePrefix()).toEqual([]);
  const plain = [unshare, "--pid", "--fork", "--kill-child"];
  const plainWorks = Bun.spawnSync([...plain, "true"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  if (plainWorks) return expect(pidNamespacePrefix()).toEqual(plain);
  expect([[], [unshare, "--user", "--map-current-user", ...plain.slice(1)]]).toContainEqual([...pidNamespacePrefix()]);
});

test("the variable the sandbox sets (PLUGBOARD_CONFINED=1) alone never takes the namespace away: unconfined, with it set, the probe is made", () => {
  const script = `const { pidNamespacePrefix } = await import(${JSON.stringify(join(import.meta.dir, "pid-namespace.ts"))}); console.log(JSON.stringify(pidNamespacePrefix()));`;
  const env = { ...process.env, PLUGBOARD_CONFINED: "1" };
  const prefixIn = (argv: string[]) => JSON.parse(Bun.spawnSync([...argv, process.execPath, "-e", script], { env, stdout: "pipe", stderr: "pipe" }).stdout.toString());
  // Where this machine can make a namespace (root here), the same prefix as without the variable.
  expect(prefixIn([])).toEqual([...pidNamespacePrefix()]);
  // no_new_privs alone (no seccomp filter) is not the sandbox either.
  const setpriv = Bun.which("setpriv");
  if (setpriv !== null) expect(prefixIn([setpriv, "--no-new-privs"])).toEqual([...pidNamespacePrefix()]);
});

test("underInit runs the init with this Bun, loading no .env or bunfig.toml, then the program", () => {
  expect(underInit(["bash", "-c", "true"])).toEqual([
    process.execPath,
    "--no-env-file",
    "--config=/dev/null",
    join(import.meta.dir, "init.ts"),
    "bash",
    "-c",
    "true",
  ]);
});

test("core's folder is looked for when the init is first asked for, not when the module loads: a process where it cannot be found (a confined host's program, built elsewhere) loads the process helpers", () => {
  // Core's package cannot be found from anywhere in this process, as in a host program whose bundle names the folder it was built in.
  const script = [
    `Bun.resolveSync = () => { throw new Error("Cannot find module '@plugboard/core/package.json'"); };`,
    `const helpers = await import(${JSON.stringify(join(import.meta.dir, "index.ts"))});`,
    `console.log(typeof helpers.readEnding, typeof helpers.underInit);`,
    "try { helpers.underInit(['true']); } catch (error) { console.log(String(error.message)); }",
  ].join("\n");
  const run = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  expect({ code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() }).toEqual({
    code: 0,
    stdout: "function function\nCannot find module '@plugboard/core/package.json'\n",
    stderr: "",
  });
  expect(coreFolder()).toBe(join(import.meta.dir, "../.."));
});

test("the first process under the prefix is PID 1, and the init's child is not", () => {
  const prefix = pidNamespacePrefix();
  if (prefix.length === 0) return;
  const run = Bun.spawnSync([...prefix, ...underInit(["sh", "-c", "echo $PPID"])], { stdio: ["ignore", "pipe", "pipe"] });
  expect(run.stdout.toString()).toBe("1\n");
});
