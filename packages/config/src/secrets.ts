/**
 * The app's secrets as its config knows them, for the runtime to keep from the model (its
 * redaction): the model key, the secrets of the `.env` beside the config and of the
 * workspace's own `.env`, and each MCP entry's `headers` and `env` values that hold one. The
 * `.env` rule — names saying KEY, TOKEN, SECRET, PASSWORD or AUTH — picks them everywhere (a
 * header `Cookie` too): a server's `NODE_ENV=production` or `Accept: application/json` is not
 * hidden wherever it appears. Values under 8 characters are left out by the runtime itself.
 */
import { join } from "node:path";
import { namesSecret, type Secret, secretsOfEnv } from "@plugboard/runtime";
import type { McpEntry, PluginEntry } from "./config.ts";
import { readDotEnv } from "./env.ts";

/** What the secrets are read from. */
export interface SecretSources {
  /** The model key and the variable it came from. */
  readonly modelKey: { readonly key: string; readonly value: string } | undefined;
  /** The `.env` beside the config, as read. */
  readonly dotEnv: Readonly<Record<string, string>>;
  /** The `.env` of the workspace, when it is another file: read only to be redacted, never loaded. */
  readonly workspaceDotEnv: string | undefined;
  readonly plugins: readonly (PluginEntry | McpEntry)[];
}

/** A header's value as sent, and its credential alone (`Bearer abc…` → `abc…`). */
const SCHEME = /^(?:Bearer|Basic|Token|token|Bot)\s+(\S+)$/;

/** The app's secrets, each named as its placeholder will say it. */
export async function configSecrets({ modelKey, dotEnv, workspaceDotEnv, plugins }: SecretSources): Promise<Secret[]> {
  // The workspace's .env may be missing, a folder or unreadable: it only adds values to redact.
  const own = workspaceDotEnv === undefined ? {} : await readDotEnv(workspaceDotEnv).catch(() => ({}));
  const servers = plugins.flatMap((entry) => ("mcp" in entry ? [entry] : []));
  const secrets = [
    ...(modelKey === undefined ? [] : [{ name: modelKey.key, value: modelKey.value }]),
    ...secretsOfEnv(dotEnv),
    ...secretsOfEnv(own),
    ...servers.flatMap(({ name, mcp }) =>
      "url" in mcp
        ? Object.entries(mcp.headers).flatMap(([header, value]) => {
            if (!namesSecret(header) && !/cookie/i.test(header)) return [];
            const credential = SCHEME.exec(value)?.[1];
            const named = `${name} ${header} header`;
            return [{ name: named, value }, ...(credential === undefined ? [] : [{ name: named, value: credential }])];
          })
        : secretsOfEnv(mcp.env).map(({ name: variable, value }) => ({ name: `${name} ${variable}`, value })),
    ),
  ];
  // Once each (the model key is often also in the .env).
  return secrets.filter((secret, index) => secrets.findIndex(({ name, value }) => name === secret.name && value === secret.value) === index);
}

/** The workspace's `.env`, unless it is the one beside the config. */
export function workspaceDotEnv(workspace: string, configFolder: string): string | undefined {
  return workspace === configFolder ? undefined : join(workspace, ".env");
}
