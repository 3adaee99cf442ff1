import { tmpdir } from "node:os";
import { ToolRegistry, Workspace } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { mcpHttpHandler } from "./serve-http.ts";
const runtime = new ToolRuntime(new ToolRegistry([]), { workspace: await Workspace.open(tmpdir()) });
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: mcpHttpHandler(runtime) });
console.log(server.port);
