/**
 * The files of a new plugin package, as `plugboard plugin new` writes them: a package that
 * is ready to test and publish, with one example tool to replace.
 */
import { CONTRACT_VERSION } from "@plugboard/core";
import corePackage from "@plugboard/core/package.json" with { type: "json" };
import testingPackage from "@plugboard/testing/package.json" with { type: "json" };
import { indexSource, indexTestSource, optionsSource, toolSource, toolTestSource } from "./plugin-template-code.ts";
import { readmeSource } from "./plugin-template-readme.ts";
import type { PluginNames } from "./plugin-names.ts";

/** Versions the new package depends on. */
export interface TemplateVersions {
  readonly core: string;
  readonly testing: string;
  readonly typebox: string;
  /** The contract of the core the plugin is made against. */
  readonly contract: string;
}

/** The tooling a plugin typechecks with: the same versions as the Plugboard repository's root. */
export const TOOLING = { "bun-types": "1.4.4", typescript: "7.0.2" } as const;

/** The versions of the installed Plugboard packages. */
export function installedVersions(): TemplateVersions {
  return {
    core: corePackage.version,
    testing: testingPackage.version,
    typebox: corePackage.dependencies["@sinclair/typebox"],
    contract: CONTRACT_VERSION,
  };
}

/** The example tool's permissions; the README and the manifest both list them. */
export const TEMPLATE_PERMISSIONS = ["fs.read"] as const;

/** Every file of the new package, by path relative to its folder. */
export function pluginTemplate(names: PluginNames, versions: TemplateVersions): Record<string, string> {
  return {
    "package.json": json(packageJson(names, versions)),
    "plugboard.plugin.json": json(manifest(names, versions)),
    "README.md": readmeSource(names),
    "tsconfig.json": json(TSCONFIG),
    ".gitignore": "node_modules/\n*.tgz\n",
    "src/index.ts": indexSource(names),
    "src/index.test.ts": indexTestSource(names),
    "src/options.ts": optionsSource(names),
    [`src/${names.shortName}.ts`]: toolSource(names),
    [`src/${names.shortName}.test.ts`]: toolTestSource(names),
  };
}

function packageJson(names: PluginNames, versions: TemplateVersions) {
  return {
    name: names.packageName,
    version: "0.1.0",
    description: `Plugboard plugin: the ${names.toolName} tool.`,
    keywords: ["plugboard", "plugboard-plugin"],
    type: "module",
    license: "MIT",
    exports: {
      ".": "./src/index.ts",
      "./plugboard.plugin.json": "./plugboard.plugin.json",
      "./package.json": "./package.json",
    },
    files: ["src", "!src/**/*.test.ts", "plugboard.plugin.json", "README.md"],
    scripts: { test: "bun test", typecheck: "tsc -p .", prepublishOnly: "bun test" },
    // Peers: the app's own core and TypeBox, so that ToolError and the schemas are the ones the runtime knows.
    peerDependencies: { "@plugboard/core": `^${versions.core}`, "@sinclair/typebox": `^${minorOf(versions.typebox)}` },
    devDependencies: {
      "@plugboard/core": `^${versions.core}`,
      "@plugboard/testing": `^${versions.testing}`,
      "@sinclair/typebox": versions.typebox,
      ...TOOLING,
    },
  };
}

function manifest(names: PluginNames, versions: TemplateVersions) {
  return {
    name: names.packageName,
    version: "0.1.0",
    contract: `^${minorOf(versions.contract)}`,
    entry: "./src/index.ts",
    tools: [{ name: names.toolName, description: "Count the lines, words and characters of a UTF-8 text file in the workspace." }],
    permissions: TEMPLATE_PERMISSIONS,
    // The JSON of the TypeBox schema in src/options.ts, for people reading the manifest (a test keeps them equal).
    options: {
      type: "object",
      additionalProperties: false,
      properties: {
        maxFileBytes: {
          type: "integer",
          minimum: 1,
          default: 1048576,
          description: "The largest file, in bytes, the tool reads.",
        },
      },
    },
  };
}

/** Strict settings, the same as the Plugboard repository's own. */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2023",
    module: "Preserve",
    moduleResolution: "bundler",
    lib: ["ES2023"],
    types: ["bun-types"],
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noFallthroughCasesInSwitch: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ["src"],
};

/** `1.4.2` → `1.4.0`: a caret range from the minor version. */
function minorOf(version: string): string {
  const [major = "0", minor = "0"] = version.split(".");
  return `${major}.${minor}.0`;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
