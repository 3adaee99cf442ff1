export * from "./create-model-client.ts";
