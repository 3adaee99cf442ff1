export { toolResult } from "./content.ts";
export { type HttpServer, McpMount, McpMountError, type MountOptions, type StdioServer } from "./mount.ts";
export { type Launch, type Launcher, ProcessTransport } from "./process-transport.ts";
export { annotationsFor, mcpServerFor, type ServeOptions } from "./serve.ts";
export { isBearerToken, isLoopbackHost, isLoopbackHostHeader } from "./http-guard.ts";
export { type HttpServeOptions, mcpHttpHandler } from "./serve-http.ts";
export { type StdioServeOptions, serveStdio } from "./serve-stdio.ts";
