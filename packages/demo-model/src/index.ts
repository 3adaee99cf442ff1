export { DEMO_BASE_URL, demoFetch } from "./demo-fetch.ts";
export { examplePrompts } from "./intents.ts";
