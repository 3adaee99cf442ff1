/**
 * Run as a child process by the scale suite: bootstraps the config given as argument
 * (`loadConfig` + `buildApp`) once, and prints its time and memory growth as JSON. The
 * bootstrap package itself is imported before the clock starts.
 */
import { buildApp, loadConfig } from "@plugboard/bootstrap";

/** What the child prints. */
export interface BootstrapSample {
  readonly ms: number;
  readonly tools: number;
  /** Growth of the resident set over the bootstrap, after a full collection, in bytes. */
  readonly rssBytes: number;
  /** Growth of the JS heap over the bootstrap, after a full collection, in bytes. */
  readonly heapBytes: number;
}

if (import.meta.main) {
  const configPath = process.argv[2];
  if (!configPath) throw new Error("usage: bun bootstrap-child.ts CONFIG");
  Bun.gc(true);
  const before = process.memoryUsage();
  const started = performance.now();
  const app = await buildApp(await loadConfig(configPath));
  const ms = performance.now() - started;
  Bun.gc(true);
  const after = process.memoryUsage();
  const sample: BootstrapSample = {
    ms,
    tools: app.registry.size,
    rssBytes: after.rss - before.rss,
    heapBytes: after.heapUsed - before.heapUsed,
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}
