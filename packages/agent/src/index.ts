/**
 * `@plugboard/agent`: the model loop — the agent loop, call scheduling, model turns and their
 * streams, request bodies, tool search, the model client for the configured endpoint, and the
 * offline demo model. The `openai` SDK is this package's alone.
 */
export { type AgentEvent, type AgentLoopOptions, type AgentLoopResult, type AgentStatus, runAgentLoop } from "./agent-loop.ts";
export type { TokenUsage } from "./model-turn.ts";
export { DEMO_BASE_URL, demoFetch } from "./demo/demo-fetch.ts";
export { examplePrompts } from "./demo/intents.ts";
export { createModelClient, type ModelClient } from "./model-client.ts";
export { ModelResponseError } from "./model-response-error.ts";
export { describeModelFailure, type Endpoint, type ModelFailure } from "./model-failure.ts";
export { type EndpointProbe, probeEndpoint } from "./probe-endpoint.ts";
export { SEARCH_RESULTS } from "./search-runtime.ts";
export { type ToolOffer, toolOffer } from "./tool-search.ts";
