/**
 * `@plugboard/model-client`: the model client and the model-failure classifier, a package of
 * their own so that commands which never talk to a model never load the `openai` SDK.
 */
export { createModelClient, type ModelClient } from "./model-client.ts";
export { describeModelFailure, type Endpoint, type ModelFailure } from "./model-failure.ts";
export { type EndpointProbe, probeEndpoint } from "./probe-endpoint.ts";
