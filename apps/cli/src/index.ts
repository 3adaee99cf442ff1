export { main } from "./program.ts";
