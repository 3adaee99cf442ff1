/** What an npm-compatible registry already has, read over its HTTP API. */

/**
 * The versions of `name` on `registry` (empty when the package is not there).
 * `token` is sent as a bearer token, as npm does, for registries that need one to read.
 *
 * @example await publishedVersions("http://127.0.0.1:4873/", "@plugboard/core") // ["0.1.0"]
 */
export async function publishedVersions(registry: string, name: string, token?: string): Promise<string[]> {
  const url = new URL(name.replace("/", "%2f"), registry.endsWith("/") ? registry : `${registry}/`);
  const response = await fetch(url, {
    headers: { accept: "application/vnd.npm.install-v1+json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  if (response.status === 404) return [];
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
  const body = (await response.json()) as { versions?: Record<string, unknown> };
  return Object.keys(body.versions ?? {});
}
