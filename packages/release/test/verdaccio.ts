/**
 * A real npm registry for tests: Verdaccio 6.8.0 (it runs on Node 20) on 127.0.0.1. Our
 * scopes (@plugboard, @acme) are stored only in this run's temp folder; every other package
 * is proxied from the registry npm is configured with here and kept in a cache folder that outlives the run, so a
 * second run downloads nothing and a flaky network after the first costs nothing.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const VERDACCIO = fileURLToPath(new URL("bin/verdaccio", import.meta.resolve("verdaccio/package.json")));
/** npm and bun refuse to publish without a token, even where anonymous publishing is allowed. */
export const TOKEN = "plugboard-test-token";

export interface Registry extends AsyncDisposable {
  /** With a trailing slash, as npm writes registry URLs. */
  readonly url: string;
  /** The `.npmrc` lines that point npm and bun at this registry, with the token. */
  readonly npmrc: string;
  /** What Verdaccio printed, for failure messages. */
  log(): string;
}

/** Where proxied packages are kept between runs (inside node_modules, so a clean install clears it). */
export const PROXY_CACHE = join(import.meta.dir, "../node_modules/.cache/verdaccio");

/** Starts Verdaccio with its config and our packages under `folder`; resolves once it answers. */
export async function startRegistry(folder: string, upstream = configuredRegistry()): Promise<Registry> {
  const local = join(folder, "storage");
  await mkdir(local, { recursive: true });
  await mkdir(PROXY_CACHE, { recursive: true });
  // Verdaccio places a package pattern's `storage` under the main storage: a relative path reaches the temp folder.
  const ours = JSON.stringify(relative(PROXY_CACHE, local));
  const config = join(folder, "config.yaml");
  await writeFile(
    config,
    [
      `storage: ${JSON.stringify(PROXY_CACHE)}`,
      "auth: { htpasswd: { file: ./htpasswd, max_users: -1 } }",
      // A failed request must not mark the npm registry offline for minutes.
      `uplinks: { upstream: { url: "${upstream}", timeout: 60s, maxage: 1d, max_fails: 20, fail_timeout: 5s } }`,
      "packages:",
      `  '@plugboard/*': { access: $all, publish: $all, unpublish: $all, storage: ${ours} }`,
      `  '@acme/*': { access: $all, publish: $all, unpublish: $all, storage: ${ours} }`,
      "  '**': { access: $all, proxy: upstream }",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const port = freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = Bun.spawn(["node", VERDACCIO, "--config", config, "--listen", `127.0.0.1:${port}`], {
    cwd: folder,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += new TextDecoder().decode(chunk);
  };
  void collect(child.stdout);
  void collect(child.stderr);
  const stop = async () => {
    child.kill();
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
    if (!exited) child.kill("SIGKILL");
    await child.exited;
  };
  const deadline = Date.now() + 30_000;
  while (!(await fetch(new URL("-/ping", url)).then((response) => response.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Verdaccio never answered on ${url} within 30 s (exit ${child.exitCode}):\n${output}`);
    }
    await Bun.sleep(100);
  }
  const npmrc = `registry=${url}\n//127.0.0.1:${port}/:_authToken=${TOKEN}\n`;
  return { url, npmrc, log: () => output, [Symbol.asyncDispose]: stop };
}

/** A port nothing listens on right now: the kernel's pick for a listener that is closed at once. */
function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = server;
  server.stop(true);
  return port;
}

/** The registry this machine's npm is set up to use (`npm config get registry`): the uplink for everything not ours. */
function configuredRegistry(): string {
  const npm = Bun.spawnSync(["npm", "config", "get", "registry"], {
    // Outside the repository: npm refuses `config get` inside a workspace.
    cwd: tmpdir(),
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = npm.stdout.toString().trim();
  if (npm.exitCode !== 0 || !/^https?:\/\//.test(url)) {
    throw new Error(`npm config get registry did not give a registry URL (exit ${npm.exitCode}): ${npm.stderr.toString().trim()}`);
  }
  return url.endsWith("/") ? url : `${url}/`;
}
