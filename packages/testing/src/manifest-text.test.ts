import { expect, test } from "bun:test";
import { withTools } from "./manifest-text.ts";

const TOOLS = [{ name: "echo", description: "Say {it}, \"again\"." }];

test("the tools value is replaced in place; strings holding brackets, quotes and commas do not mislead the scan", () => {
  const text = '{\n  "name": "a, [b] {c}",\n  "tools": [{ "name": "old", "description": "x\\" ]}" }],\n  "permissions": []\n}\n';
  expect(withTools(text, TOOLS)).toBe(
    '{\n  "name": "a, [b] {c}",\n  "tools": [\n    {\n      "name": "echo",\n      "description": "Say {it}, \\"again\\"."\n    }\n  ],\n  "permissions": []\n}\n',
  );
  expect(JSON.parse(withTools(text, TOOLS)).tools).toEqual(TOOLS);
});

test("a last member, CRLF line endings and four-space indentation are kept", () => {
  const text = '{\r\n    "entry": "./src/index.ts",\r\n    "tools": []\r\n}\r\n';
  expect(withTools(text, TOOLS)).toBe(
    '{\r\n    "entry": "./src/index.ts",\r\n    "tools": [\r\n        {\r\n            "name": "echo",\r\n            "description": "Say {it}, \\"again\\"."\r\n        }\r\n    ]\r\n}\r\n',
  );
});

test("missing, the tools go after entry, else last, else into the empty object", () => {
  expect(JSON.parse(withTools('{ "entry": "./x.ts", "permissions": [1, {"a": true}] }', TOOLS))).toEqual({ entry: "./x.ts", tools: TOOLS, permissions: [1, { a: true }] });
  expect(Object.keys(JSON.parse(withTools('{ "name": "n", "version": 2 }', TOOLS)))).toEqual(["name", "version", "tools"]);
  expect(JSON.parse(withTools("{}\n", TOOLS))).toEqual({ tools: TOOLS });
});
