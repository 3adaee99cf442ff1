/**
 * One start's check of the code, in a process of its own (pins.ts): argv is the lock, the
 * app's folder, the workspace, the kept closures' file and the plugins as JSON. Prints the
 * milliseconds the pins' check took and those the protected code's paths took, the modules
 * already loaded.
 */
import { pinCode, pinnedCode } from "../../../packages/bootstrap/src/code-pins.ts";
import { codeProtections } from "../../../packages/sandbox/src/protect/code-protection.ts";

const [lockPath = "", appFolder = "", workspace = "", closureCache = "", json = "[]"] = process.argv.slice(2);
const plugins = JSON.parse(json) as { origin: "app" | "path" | "config"; directory: string; manifest: { name: string }; where: { index: number } }[];
const started = performance.now();
await pinCode(lockPath, await pinnedCode(plugins, appFolder, workspace));
const pinned = performance.now();
codeProtections([appFolder, ...plugins.map(({ directory }) => directory)], workspace, closureCache);
process.stdout.write(`${pinned - started} ${performance.now() - pinned}\n`);
