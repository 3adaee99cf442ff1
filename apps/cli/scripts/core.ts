/**
 * Core as the bundled CLI carries it (`dist/core.js`): the bundle's entry that plugins are
 * given when they import `@plugboard/core` (see bin.ts, beside it).
 */
export * from "@plugboard/core";
