import { expect, test } from "bun:test";
import { rankTools, type Searchable } from "./tool-match.ts";

function tool(name: string, description: string, parameters: readonly string[] = []): Searchable {
  const properties = Object.fromEntries(parameters.map((parameter) => [parameter, { type: "string" }]));
  return { name, schema: { type: "function", function: { name, description, parameters: { type: "object", properties } } } };
}

const TOOLS = [
  tool("read_file", "Read a text file by lines.", ["path", "offset", "limit"]),
  tool("glob", "Find files whose paths match a pattern.", ["pattern", "path"]),
  tool("getWeather", "Tomorrow's forecast for a city.", ["city"]),
  tool("issues_list", "List the open issues of a repository.", ["repo"]),
  tool("post_message", "Send a chat message to a channel.", ["channel", "text"]),
];
const names = (query: string) => rankTools(query, TOOLS).map(({ tool }) => tool.name);

test("a word in a tool's name counts more than one in a parameter's name, which counts more than one in a description", () => {
  expect(names("path")).toEqual(["read_file", "glob"]);
  expect(names("file")).toEqual(["read_file", "glob"]);
  expect(names("channel message")[0]).toBe("post_message");
});

test("descriptions are searched; words match by a shared beginning of four letters; camelCase names split", () => {
  expect(names("forecast")).toEqual(["getWeather"]);
  expect(names("reading files")).toEqual(["read_file", "glob"]);
  expect(names("issue")).toEqual(["issues_list"]);
  expect(names("weather")).toEqual(["getWeather"]);
  // Short words match only whole: "pat" is no beginning of "path".
  expect(names("pat")).toEqual([]);
});

test("stop words are ignored unless nothing else is left; a query of tool names finds exactly those", () => {
  expect(names("the city of a")).toEqual(["getWeather"]);
  expect(names("glob, read_file")).toEqual(["glob", "read_file"]);
  expect(names("glob unknown_tool")).toEqual(["glob"]);
  expect(names("")).toEqual([]);
  expect(names("  ,, ")).toEqual([]);
});

test("a rare word outranks a common one; equal scores keep the given order", () => {
  const tools = [tool("a_list", "List things."), tool("b_list", "List things."), tool("c_list", "List invoices.")];
  expect(rankTools("list invoices", tools).map(({ tool }) => tool.name)).toEqual(["c_list", "a_list", "b_list"]);
});
