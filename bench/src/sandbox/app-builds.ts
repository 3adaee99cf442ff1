/** Apps of the suite, built in the bench's process from a config file each, and closed whatever happens. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type App, type BuildAppOptions, buildApp, loadConfig } from "@plugboard/bootstrap";

/** Builds apps whose configs go in one folder, and closes those still open. */
export interface AppBuilds {
  /** Writes `NAME.json` (workspace: the folder) and builds the app from it. */
  build(name: string, sandbox: "auto" | "off", plugins: readonly object[], options?: BuildAppOptions): Promise<App>;
  /** Closes one app. */
  close(app: App): Promise<void>;
  /** Closes every app still open. */
  closeAll(): Promise<void>;
}

/** Apps whose configs and workspace are `dir`, built with `env` (where the listing cache and the writable spans are: `XDG_CACHE_HOME`, `XDG_STATE_HOME`). */
export function appBuilds(dir: string, env: Readonly<Record<string, string | undefined>>): AppBuilds {
  const open = new Set<App>();
  return {
    async build(name, sandbox, plugins, options = {}) {
      const path = join(dir, `${name}.json`);
      await writeFile(path, JSON.stringify({ workspace: ".", sandbox, plugins }));
      const built = await buildApp(await loadConfig(path, { env: {}, cwd: dir }), { env, ...options });
      open.add(built);
      return built;
    },
    async close(app) {
      open.delete(app);
      await app.close();
    },
    async closeAll() {
      const apps = [...open];
      open.clear();
      await Promise.all(apps.map((app) => app.close()));
    },
  };
}
