/**
 * highlight.js as the code blocks of a rendered answer use it (through marked-terminal's
 * cli-highlight): its core and the languages models write most, registered here, instead of
 * the package's all ~190 languages, which took some 200 ms of CPU to load and to guess a
 * fence's language from on the first answer. The bundle builds this in place of
 * `highlight.js` (scripts/build.ts); what cli-highlight calls is exported by name.
 */
import type { HighlightOptions, HighlightResult } from "highlight.js";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import php from "highlight.js/lib/languages/php";
import plaintext from "highlight.js/lib/languages/plaintext";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

/** The languages a fence can name (or their aliases: `ts`, `sh`, `py`, `html`, `yml`, `toml`…); another is shown unhighlighted. */
const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  makefile,
  markdown,
  php,
  plaintext,
  python,
  ruby,
  rust,
  shell,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

export const { highlightAuto, getLanguage, listLanguages } = hljs;

/** highlight.js's `highlight`, except that a language not carried throws without its console message on the screen (the code is then shown unhighlighted). */
export function highlight(code: string, options: HighlightOptions): HighlightResult {
  if (hljs.getLanguage(options.language) === undefined) throw new Error(`no highlighting for ${options.language}`);
  return hljs.highlight(code, options);
}
