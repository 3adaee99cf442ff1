/** Builds the app of the config file given as the argument, prints `ready`, and runs until killed. */
import { buildApp, loadConfig } from "../src/index.ts";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: bun hold-app.ts CONFIG");
await buildApp(await loadConfig(path));
console.log("ready");
await new Promise(() => {});
