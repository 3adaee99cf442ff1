/** The README of a new plugin: what a person needs to enable, use, develop and publish it. */
import type { PluginNames } from "./plugin-names.ts";

/** `README.md`, in the shape every Plugboard package's README has. */
export function readmeSource(names: PluginNames): string {
  const { packageName, toolName } = names;
  return `# ${packageName}

A Plugboard plugin: the \`${toolName}\` tool counts
the lines, words and characters of a UTF-8 text file in the workspace. (It is the example
\`plugboard plugin new\` made: replace it with your own tool.)

## Enable it

Install it in the app's folder and list it in the app's config file, granting the
\`fs.read\` permission:

\`\`\`sh
bun add ${packageName}
\`\`\`

\`\`\`json
{
  "plugins": [
    { "package": "${packageName}", "permissions": ["fs.read"], "options": { "maxFileBytes": 65536 } }
  ]
}
\`\`\`

## Parameters (as the model sees them)

| name | type | meaning |
|---|---|---|
| \`path\` | string | The file, relative to the workspace root. |

## Options

| option | default | meaning |
|---|---|---|
| \`maxFileBytes\` | \`1048576\` | The largest file, in bytes, the tool reads. |

## Permissions

\`fs.read\`: it reads files in the workspace, and only there.

## Results

- \`PATH: N lines, N words, N characters\`
- \`Error: File not found: PATH\`
- \`Error: PATH is a directory, not a file\`
- \`Error: PATH is N bytes, over the limit of N bytes\`
- \`Error: PATH is a binary file, not UTF-8 text\`
- \`Error: Path escapes workspace: PATH\`

## Develop

\`\`\`sh
bun install
bun test            # Plugboard's conformance checks, then the tool's own tests
bun run typecheck
\`\`\`

\`src/index.test.ts\` runs \`@plugboard/testing\`'s conformance suite: the package and its
manifest, the tools, invalid arguments, \`Error:\` results for bad input, cancellation,
nothing printed, and the permissions used. \`plugboard plugin check .\` prints the same checks.

## Publish

\`\`\`sh
bun pm pack         # look inside the tarball: package.json, plugboard.plugin.json, README.md, src/
bun publish
\`\`\`

Keep the manifest's \`name\` and \`version\` equal to package.json's when you release, and
widen its \`contract\` range only after testing against the newer Plugboard contract.
`;
}
