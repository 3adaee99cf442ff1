import { join } from "node:path";
import { conformanceSuite } from "./suite.ts";

// The suite as a plugin's tests use it: one passing test per check for a conforming plugin.
conformanceSuite(join(import.meta.dir, "../test/fixtures/conforming"));
