export { checkBinding, isLoopbackHost } from "./binding.ts";
export { type ChatMessage, type ChatRequest, ChatRequestSchema, DEFAULT_MAX_BODY_BYTES } from "./chat-request.ts";
export type { ChatTurnResult, ToolCallSummary } from "./chat-turn.ts";
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_SYSTEM_PROMPT,
  startWebServer,
  type WebServer,
  type WebServerOptions,
  type WebServerStats,
} from "./server.ts";
export { HELP, parsePort, parseWebArgs, TOKEN_ENV, type WebArgs } from "./args.ts";
export { buildChatPage, type ChatPage } from "./page.ts";
export { DEFAULT_CONFIG_PATH, startupLines, startWebApp, WEB_FOLDER, type WebApp, type WebAppOptions } from "./web-app.ts";
