import { expect, test } from "bun:test";
import { addEntryGrant, addPluginEntry, removePluginEntry } from "./config-edit.ts";
import { parseJson } from "./json.ts";

const CONFIG = `// my app
{
  "workspace": ".", // the repo
  "plugins": [
    /* reads */ { "package": "@plugboard/plugin-read-file", "permissions": ["fs.read"] },
  ],
}
`;

test("adding appends the entry and keeps the comments", () => {
  const added = addPluginEntry(CONFIG, { package: "@acme/notes", permissions: ["fs.read", "fs.write"] });
  expect(added).toContain("// my app");
  expect(added).toContain("// the repo");
  expect(added).toContain("/* reads */");
  expect(parseJson(added)).toEqual({
    ok: true,
    value: {
      workspace: ".",
      plugins: [
        { package: "@plugboard/plugin-read-file", permissions: ["fs.read"] },
        { package: "@acme/notes", permissions: ["fs.read", "fs.write"] },
      ],
    },
  });
});

test("adding a package already listed replaces its permissions only", () => {
  const text = '{ "plugins": [{ "package": "@acme/notes", "permissions": [], "options": { "a": 1 } }] }';
  const value = parseJson(addPluginEntry(text, { package: "@acme/notes", permissions: ["fs.read"] }));
  expect(value).toEqual({ ok: true, value: { plugins: [{ package: "@acme/notes", permissions: ["fs.read"], options: { a: 1 } }] } });
});

test("removing takes out that entry and keeps the rest; a package not listed gives undefined", () => {
  const added = addPluginEntry(CONFIG, { package: "@acme/notes", permissions: [] });
  const removed = removePluginEntry(added, { package: "@acme/notes" }) ?? "";
  expect(removed).toContain("/* reads */");
  expect(parseJson(removed)).toEqual(parseJson(CONFIG));
  expect(removePluginEntry(CONFIG, { package: "@acme/other" })).toBeUndefined();
});

test("removing the first, a middle, the last or the only entry of a list written on one line leaves valid JSON", () => {
  const entries = ['{"package":"a","permissions":["process.spawn"]}', '{"package":"b"}', '{"package":"c","options":{"x":[1]}}'];
  const config = (list: readonly string[]) => `{"workspace":".","plugins":[${list.join(",")}]}`;
  for (const name of ["a", "b", "c"]) {
    const removed = removePluginEntry(config(entries), { package: name }) ?? "";
    expect(parseJson(removed)).toEqual(parseJson(config(entries.filter((entry) => !entry.includes(`"${name}"`)))));
  }
  expect(removePluginEntry(config([entries[0] ?? ""]), { package: "a" })).toBe('{"workspace":".","plugins":[]}');
});

test("adding and updating leave the other entries as they were written, one line each", () => {
  const lines = [
    "{",
    '  "plugins": [',
    '    { "package": "@plugboard/plugin-read-file", "permissions": ["fs.read"] },',
    '    { "package": "@acme/notes", "permissions": [] }, // notes',
    "  ]",
    "}",
    "",
  ];
  const text = lines.join("\n");
  const added = addPluginEntry(text, { package: "@acme/todo", permissions: ["fs.read", "fs.write"] });
  expect(added).toBe(
    [...lines.slice(0, 4), '    { "package": "@acme/todo", "permissions": ["fs.read", "fs.write"] },', ...lines.slice(4)].join("\n"),
  );
  const updated = addPluginEntry(text, { package: "@acme/notes", permissions: ["fs.read"] });
  expect(updated).toBe(text.replace('"@acme/notes", "permissions": []', '"@acme/notes", "permissions": ["fs.read"]'));
});

test("adding to a plugins list written on one line keeps it on one line", () => {
  const text = '{ "plugins": [{ "package": "@acme/notes", "permissions": [] }] }\n';
  expect(addPluginEntry(text, { package: "@acme/todo", permissions: ["fs.read"] })).toBe(
    '{ "plugins": [{ "package": "@acme/notes", "permissions": [] }, { "package": "@acme/todo", "permissions": ["fs.read"] }] }\n',
  );
});

test("addPolicyRule puts a rule before the one at its index, on its own line, comments kept; at the end, or in a new list", async () => {
  const { addPolicyRule } = await import("./config-edit.ts");
  const rule = { tool: "bash", args: { command: "git log *" }, action: "allow" } as const;
  const text = '{\n  // mine\n  "policy": {\n    "rules": [\n      { "tool": "glob", "action": "allow" }, // look\n      { "tool": "bash", "action": "ask" }\n    ]\n  }\n}\n';
  const line = '      { "tool": "bash", "args": { "command": "git log *" }, "action": "allow" }';
  expect(addPolicyRule(text, rule, 1)).toBe(text.replace('      { "tool": "bash", "action": "ask" }', `${line},\n      { "tool": "bash", "action": "ask" }`));
  expect(addPolicyRule(text, rule, -1)).toBe(text.replace('      { "tool": "bash", "action": "ask" }', `      { "tool": "bash", "action": "ask" },\n${line}`));
  expect(addPolicyRule('{ "policy": { "rules": [{ "tool": "x", "action": "ask" }] } }', rule, 0)).toBe(
    '{ "policy": { "rules": [{ "tool": "bash", "args": { "command": "git log *" }, "action": "allow" }, { "tool": "x", "action": "ask" }] } }',
  );
  const created = parseJson(addPolicyRule('{ "plugins": [] } // mine', rule, 0));
  expect(created).toEqual({ ok: true, value: { plugins: [], policy: { rules: [rule] } } });
});

test("a path entry is added as written, updated when that path is listed, and removed by it", () => {
  const text = '{ "plugins": [{ "package": "@acme/notes", "permissions": [] }] }\n';
  const added = addPluginEntry(text, { path: "./plugins/todo", permissions: ["fs.read"] });
  expect(added).toBe('{ "plugins": [{ "package": "@acme/notes", "permissions": [] }, { "path": "./plugins/todo", "permissions": ["fs.read"] }] }\n');
  expect(addPluginEntry(added, { path: "./plugins/todo", permissions: [] })).toBe(added.replace('"permissions": ["fs.read"]', '"permissions": []'));
  expect(removePluginEntry(added, { path: "./plugins/todo" })).toBe(text);
  expect(removePluginEntry(added, { path: "./plugins/notes" })).toBeUndefined();
  expect(removePluginEntry(added, { package: "./plugins/todo" })).toBeUndefined();
});

test("a path entry is found however its path is written (./p, p, p/): one edited to another form while the app runs still takes its grant", () => {
  const text = '{ "plugins": [{ "path": "p/", "permissions": [] }, { "path": "../p", "permissions": [] }] }';
  expect(addEntryGrant(text, { path: "./p" }, { permission: "fs.read" })).toBe(text.replace('"p/", "permissions": []', '"p/", "permissions": ["fs.read"]'));
  expect(addEntryGrant(text, { path: "p" }, { permission: "fs.read" })).toBe(text.replace('"p/", "permissions": []', '"p/", "permissions": ["fs.read"]'));
  expect(addPluginEntry(text, { path: "./p", permissions: ["fs.write"] })).toBe(text.replace('"p/", "permissions": []', '"p/", "permissions": ["fs.write"]'));
  expect(removePluginEntry(text, { path: "./p/" })).toBe('{ "plugins": [{ "path": "../p", "permissions": [] }] }');
  // Another folder stays another: `../p` is not `p`, and `.` is not `p`.
  expect(removePluginEntry(text, { path: "." })).toBeUndefined();
  expect(addEntryGrant(text, { path: "./../p" }, { permission: "fs.read" })).toBe(text.replace('"../p", "permissions": []', '"../p", "permissions": ["fs.read"]'));
});

test("a grant saved to an entry: the permission or the hosts at the end of its list, comments and neighbours as they were", () => {
  const text = `{
  "plugins": [
    { "package": "@plugboard/plugin-read-file", "permissions": ["fs.read"] }, // reads
    {
      "package": "@plugboard/plugin-bash",
      "permissions": ["process.spawn", "fs.read"], // no network yet
      "network": ["localhost:4873"]
    }
  ]
}
`;
  const permission = addEntryGrant(text, { package: "@plugboard/plugin-bash" }, { permission: "network" });
  expect(permission).toBe(text.replace('["process.spawn", "fs.read"]', '["process.spawn", "fs.read", "network"]'));
  const hosts = addEntryGrant(text, { package: "@plugboard/plugin-bash" }, { hosts: ["127.0.0.2:80", "example.com:443"] });
  expect(hosts).toBe(text.replace('["localhost:4873"]', '["localhost:4873", "127.0.0.2:80", "example.com:443"]'));
  // No list yet: one is made; an empty one is filled.
  const made = parseJson(addEntryGrant(text, { package: "@plugboard/plugin-read-file" }, { hosts: ["a.example:80"] }));
  expect(made.ok && made.value).toMatchObject({ plugins: [{ package: "@plugboard/plugin-read-file", network: ["a.example:80"] }, {}] });
  expect(addEntryGrant('{ "plugins": [{ "path": "./p", "permissions": [] }] }', { path: "./p" }, { permission: "fs.read" })).toBe('{ "plugins": [{ "path": "./p", "permissions": ["fs.read"] }] }');
  expect(addEntryGrant('{ "plugins": [{ "path": "./p", "permissions": [], "read": ["/a"] }] }', { path: "./p" }, { read: "/b/c.txt" })).toBe(
    '{ "plugins": [{ "path": "./p", "permissions": [], "read": ["/a", "/b/c.txt"] }] }',
  );
  expect(() => addEntryGrant(text, { package: "@plugboard/plugin-glob" }, { permission: "network" })).toThrow('its entry ("package": "@plugboard/plugin-glob") is no longer in the config\'s "plugins"');
  // A server by its name, never a plugin that happens to carry one.
  const servers = '{ "plugins": [{ "path": "./weather", "name": "w", "permissions": [] }, { "mcp": { "command": "w" }, "name": "w", "permissions": [] }] }';
  expect(addEntryGrant(servers, { name: "w" }, { permission: "fs.read" })).toBe(servers.replace('"name": "w", "permissions": [] }] }', '"name": "w", "permissions": ["fs.read"] }] }'));
});
