/** A child process serving the echo runtime over MCP stdio, with Plugboard's server adapter. */
import { serveStdio } from "@plugboard/mcp";
import { echoRuntime } from "./echo-runtime.ts";

await serveStdio(await echoRuntime());
