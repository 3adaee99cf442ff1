/**
 * Well-known key formats, found in any text the model would read. Each token format is a
 * name (what the placeholder says) and the shape of a whole token — a run of letters, digits,
 * `_` and `-` with nothing of the kind on either side — so that a word that merely starts
 * alike (`sk-learn`, `my_ghp_…`) is left alone. PEM private keys are blocks of lines, found on
 * their own. The list is short on purpose: formats with a prefix no ordinary text has. A
 * secret without one (an AWS secret access key, a database password) is found by its value,
 * from the app's own secrets.
 */

/**
 * One token format: what it is called in `[redacted: NAME]`, the whole token's shape, and the
 * prefix every token of it starts with (non-capturing groups only): a token cut short by a
 * capped output is known by its prefix alone.
 */
export interface KeyFormat {
  readonly name: string;
  readonly pattern: string;
  readonly prefix: string;
}

/** The token formats, in the order they are tried (Anthropic's `sk-ant-` before OpenAI's `sk-`). */
export const KEY_FORMATS: readonly KeyFormat[] = Object.freeze([
  { name: "AWS access key id", pattern: "(?:AKIA|ASIA)[A-Z0-9]{16}", prefix: "AKIA|ASIA" },
  { name: "GitHub token", pattern: "gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244}", prefix: "gh[pousr]_|github_pat_" },
  { name: "GitLab token", pattern: "glpat-[A-Za-z0-9_-]{20,}", prefix: "glpat-" },
  { name: "Slack token", pattern: "xox[abprs]-[A-Za-z0-9-]{10,}", prefix: "xox[abprs]-" },
  { name: "Anthropic key", pattern: "sk-ant-[A-Za-z0-9_-]{20,}", prefix: "sk-ant-" },
  { name: "OpenAI key", pattern: "sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{32,}", prefix: "sk-" },
  { name: "Google API key", pattern: "AIza[A-Za-z0-9_-]{35}", prefix: "AIza" },
  { name: "Stripe key", pattern: "(?:sk|rk)_live_[A-Za-z0-9]{20,}", prefix: "(?:sk|rk)_live_" },
  { name: "npm token", pattern: "npm_[A-Za-z0-9]{36}", prefix: "npm_" },
]);

/** The characters of a token, as a class of a regular expression: a format's match must be a whole run of them. */
export const TOKEN_CLASS = "A-Za-z0-9_-";

/** The shortest token of any format (a Slack token's `xoxb-` and ten more). */
export const MIN_TOKEN_LENGTH = 15;

/** What a PEM private key is called in its placeholder. */
export const PEM_NAME = "PEM private key";

const PEM_LABEL = "[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----";

/**
 * A PEM private key: the whole block, or a block cut before its end marker (a capped output)
 * up to where its base64 lines stop; or, in its second group, an end marker alone (the tail of
 * a key whose head was cut), which reaches back over the base64 lines before it. A whole
 * block's body starts on a new line, or after a `\n` as JSON writes one in a string (a cloud
 * service account's key file). A marker with no base64 line beside it holds no key, and is left.
 */
export const PEM_PATTERN = `(-----BEGIN ${PEM_LABEL}(?:(?:\\r?\\n|(?:\\\\r)?\\\\n)[\\s\\S]*?-----END ${PEM_LABEL}|(?:\\r?\\n[A-Za-z0-9+/=]+)+))|(-----END ${PEM_LABEL})`;

/** A line of a PEM block's body, walked back over from a lone end marker. */
export const PEM_BODY_LINE = /^[A-Za-z0-9+/=]+\r?$/;
