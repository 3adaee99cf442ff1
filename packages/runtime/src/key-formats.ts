/**
 * Well-known key formats, found in any text the model would read: each a name (what the
 * placeholder says) and a pattern anchored on the token's prefix and on both ends, so that a
 * word that merely starts alike (`sk-learn`, `AKIAS`) is left alone. The list is short on
 * purpose: formats with a prefix no ordinary text has. A secret without one (an AWS secret
 * access key, a database password) is found by its value, from the app's own secrets.
 */

/** One format: what it is called in `[redacted: NAME]`, and its pattern (non-capturing groups only). */
export interface KeyFormat {
  readonly name: string;
  readonly pattern: string;
}

/** What stands before and after a token: not a character that could continue it. */
const START = "(?<![A-Za-z0-9_-])";
const END = "(?![A-Za-z0-9_-])";
const PEM_LABEL = "[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----";

/** The name of the PEM format, whose end marker alone is also matched (the tail of a cut key). */
export const PEM_NAME = "PEM private key";

/**
 * The formats, in the order they are tried at one position (Anthropic's `sk-ant-` before
 * OpenAI's `sk-`).
 */
export const KEY_FORMATS: readonly KeyFormat[] = Object.freeze([
  // The whole block; a block cut before its end marker (a capped output) up to where its base64 stops.
  { name: PEM_NAME, pattern: `-----BEGIN ${PEM_LABEL}(?:[\\s\\S]*?-----END ${PEM_LABEL}|(?:\\r?\\n[A-Za-z0-9+/=]+)*)` },
  { name: "AWS access key id", pattern: `${START}(?:AKIA|ASIA)[A-Z0-9]{16}${END}` },
  { name: "GitHub token", pattern: `${START}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})${END}` },
  { name: "GitLab token", pattern: `${START}glpat-[A-Za-z0-9_-]{20,}${END}` },
  { name: "Slack token", pattern: `${START}xox[abprs]-[A-Za-z0-9-]{10,}${END}` },
  { name: "Anthropic key", pattern: `${START}sk-ant-[A-Za-z0-9_-]{20,}${END}` },
  { name: "OpenAI key", pattern: `${START}sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})${END}` },
  { name: "Google API key", pattern: `${START}AIza[A-Za-z0-9_-]{35}${END}` },
  { name: "Stripe key", pattern: `${START}(?:sk|rk)_live_[A-Za-z0-9]{20,}${END}` },
  { name: "npm token", pattern: `${START}npm_[A-Za-z0-9]{36}${END}` },
]);

/** A PEM block's end marker without its beginning: the tail of a key whose head was cut. */
export const PEM_END_PATTERN = `-----END ${PEM_LABEL}`;

/** A line of a PEM block's body, walked back over from a lone end marker. */
export const PEM_BODY_LINE = /^[A-Za-z0-9+/=]+\r?$/;
