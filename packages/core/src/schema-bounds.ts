/**
 * How large a tool's schema may be. Compiling costs time in proportion to the schema (Ajv:
 * about 1.7 s for 20,000 properties), and a server could list one without end; no tool's
 * parameters need more.
 */

/**
 * The most objects and arrays one tool's schema may hold (each shared one counted once): a
 * mounted server's tool with a larger one is refused (`@plugboard/mcp`), and the description
 * scan at pinning reads no further.
 */
export const MAX_SCHEMA_NODES = 10_000;
