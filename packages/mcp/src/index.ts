export { toolResult } from "./content.ts";
export { type HttpServer, McpMount, McpMountError, type MountOptions, type StdioServer } from "./mount.ts";
export { type Launch, type Launcher, ProcessTransport } from "./process-transport.ts";
export { annotationsFor, mcpServerFactory, mcpServerFor, type ServeOptions, type ServerFactory } from "./serve.ts";
export { isBearerToken, isForeignOrigin, isJsonContentType, isLoopbackHost, isLoopbackHostHeader } from "./http-guard.ts";
export { type HttpServeOptions, MAX_BODY_BYTES, mcpHttpHandler } from "./serve-http.ts";
export { FORWARDED_HEADER, InFlightCalls, type PeerOptions, SESSION_HEADER } from "./in-flight.ts";
export { type StdioServeOptions, serveStdio } from "./serve-stdio.ts";
export {
  answerProblems,
  type ElicitationAnswer,
  type ElicitationRequest,
  type Elicitor,
  elicitationRequest,
  type FieldValue,
  type FormField,
  fieldProblems,
  parseField,
} from "./elicitation.ts";
export { authFolder, type LoginOptions, LoginRequired, loginServer, logoutServer, savedTokens, tokenFile } from "./oauth.ts";
