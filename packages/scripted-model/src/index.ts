export { type ErrorBody, defaultErrorBody, errorBody } from "./error-bodies.ts";
export { type ScriptedModel, type ScriptedModelOptions, startScriptedModel } from "./scripted-model.ts";
export type * from "./types.ts";
