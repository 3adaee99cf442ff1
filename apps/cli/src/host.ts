/**
 * The plugin host as the bundled CLI runs it (`dist/host.js`, built by `scripts/build.ts`):
 * the bootstrap's host, whose plugin is given the bundle's core. One file to load instead of
 * the bootstrap's, core's and the MCP SDK's sources; not run from source.
 */
import { useBundledCore } from "./bundled-core.ts";

useBundledCore();
const { runHost } = await import("@plugboard/bootstrap/plugin-host");
await runHost(process.argv[2]);
