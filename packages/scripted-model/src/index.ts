export { type ErrorBody, defaultErrorBody, errorBody } from "./error-bodies.ts";
export { RECORDED_STREAMS, type RecordedStream, recordedStream } from "./recorded.ts";
export type { ProviderRules } from "./provider-rules.ts";
export { REASONING_REQUIRED } from "./routes.ts";
export { type ScriptedModel, type ScriptedModelOptions, startScriptedModel } from "./scripted-model.ts";
export type * from "./types.ts";
