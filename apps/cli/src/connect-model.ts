/** The model client of `run` and the interactive session, kept apart so other commands never load the SDK. */
import type { App } from "@plugboard/bootstrap";
import { createModelClient, type Endpoint } from "@plugboard/bootstrap/model";
import type OpenAI from "openai";
import type { Io } from "./io.ts";

/** A model client for the app, and where it sends requests. */
export interface ConnectedModel {
  readonly client: OpenAI;
  readonly demo: boolean;
  readonly endpoint: Endpoint;
}

/** Creates the model client; says on stderr when it is the offline demo model. */
export function connectModel(app: App, io: Io): ConnectedModel {
  const { client, demo } = createModelClient(app.config.model);
  if (demo) {
    io.note("no MODEL_API_KEY or BASE_URL is set, so an offline demo model answers (it understands a few fixed requests).");
    io.note("To use a real model, set MODEL_API_KEY (OpenAI), or BASE_URL / --base-url URL for any OpenAI-compatible endpoint.");
  }
  return { client, demo, endpoint: { baseURL: client.baseURL, model: app.config.model.name } };
}
