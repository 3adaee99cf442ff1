import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { charactersCutLine, lineCutMark, resultCutLine } from "@plugboard/core";
import { Redactor, secretsOfEnv } from "./redaction.ts";

/** Tokens are built from parts, so that no scanner takes this file for a leak. */
const run = (length: number, alphabet = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz") => Array.from({ length }, (_, i) => alphabet[(i * 7) % alphabet.length]).join("");
const pem = (type: "pkcs8" | "pkcs1") =>
  (type === "pkcs8" ? generateKeyPairSync("ed25519") : generateKeyPairSync("rsa", { modulusLength: 1024 })).privateKey.export({ type, format: "pem" }).toString();

const none = new Redactor();

describe("well-known key formats, in any text", () => {
  const formats: [string, string][] = [
    ["PEM private key", pem("pkcs8").trimEnd()],
    ["PEM private key", pem("pkcs1").trimEnd()],
    ["AWS access key id", `AKIA${run(16).toUpperCase()}`],
    ["AWS access key id", `ASIA${run(16).toUpperCase()}`],
    ["GitHub token", `ghp_${run(36)}`],
    ["GitHub token", `gho_${run(36)}`],
    ["GitHub token", `ghs_${run(36)}`],
    ["GitHub token", `github_pat_${run(22)}_${run(59)}`],
    ["GitLab token", `glpat-${run(20)}`],
    ["Slack token", `xoxb-${run(12, "0123456789")}-${run(24)}`],
    ["Anthropic key", `sk-ant-api03-${run(90)}`],
    ["OpenAI key", `sk-proj-${run(40)}_${run(40)}`],
    ["OpenAI key", `sk-${run(48)}`],
    ["Google API key", `AIza${run(35)}`],
    ["Stripe key", `sk_live_${run(24)}`],
    ["Stripe key", `rk_live_${run(24)}`],
    ["npm token", `npm_${run(36)}`],
  ];
  for (const [name, token] of formats) {
    test(`${name}: ${token.slice(0, 14)}…`, () => {
      expect(none.redact(`before ${token} after`)).toEqual({ text: `before [redacted: ${name}] after`, count: 1 });
      expect(none.redact(`"${token}"`)).toEqual({ text: `"[redacted: ${name}]"`, count: 1 });
    });
  }

  test("a token of the shortest length is found wherever it starts, at the text's ends included", () => {
    const slack = `xoxb-${run(10, "0123456789")}`;
    expect(slack).toHaveLength(15);
    for (let pad = 0; pad < 40; pad++) {
      const before = ". ".repeat(20).slice(0, pad);
      expect(none.redact(`${before}${slack}`).text).toBe(`${before}[redacted: Slack token]`);
      expect(none.redact(`${before}${slack}, and more`).text).toBe(`${before}[redacted: Slack token], and more`);
    }
  });

  test("words that only start like a token are left alone", () => {
    const ordinary = [
      "sk-learn is a library; sk-proj-x is short",
      `AKIA${run(15).toUpperCase()} is one short; XAKIA${run(16).toUpperCase()} starts inside a word`,
      `ghp_${run(20)} is short; my_ghp_${run(36)} starts after a word`,
      "npm_config_cache=/tmp/npm and xoxb-short",
      "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----",
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
      // Markers with no base64 line beside them hold no key.
      "-----BEGIN OPENSSH PRIVATE KEY----- a stand-in",
      "a stand-in -----END OPENSSH PRIVATE KEY-----",
    ].join("\n");
    expect(none.redact(ordinary)).toEqual({ text: ordinary, count: 0 });
  });

  test("a PEM block cut before its end, and one cut before its beginning (the tail of a capped output), are redacted to their edges", () => {
    const key = pem("pkcs8");
    const [begin = "", body = "", end = ""] = key.trimEnd().split("\n");
    expect(none.redact(`head\n${begin}\n${body}\n… 400 characters cut`).text).toBe("head\n[redacted: PEM private key]\n… 400 characters cut");
    expect(none.redact(`… 400 characters cut\n${body}\n${end}\ntail`).text).toBe("… 400 characters cut\n[redacted: PEM private key]\ntail");
    expect(none.redact(`${key}${key}`)).toEqual({ text: "[redacted: PEM private key]\n[redacted: PEM private key]\n", count: 2 });
  });

  test("a PEM block inside a JSON string (a service account's key file, its line breaks written \\n) is redacted whole", () => {
    const file = JSON.stringify({ type: "service_account", private_key: pem("pkcs8"), client_email: "robot@example.iam" }, null, 2);
    expect(file).toContain("PRIVATE KEY-----\\n");
    const { text, count } = none.redact(file);
    expect(count).toBe(1);
    expect(text).toContain('"private_key": "[redacted: PEM private key]\\n"');
    expect(text).toContain('"client_email": "robot@example.iam"');
  });
});

describe("the app's secrets", () => {
  const redactor = new Redactor([
    { name: "DB_PASSWORD", value: "correct-horse-battery" },
    { name: "SHORT_TOKEN", value: "abc1234" },
    { name: "EIGHT", value: "abcd1234" },
  ]);

  test("replaced by their names; a value under 8 characters never is", () => {
    expect(redactor.redact("pw=correct-horse-battery short=abc1234 eight=abcd1234")).toEqual({
      text: "pw=[redacted: DB_PASSWORD] short=abc1234 eight=[redacted: EIGHT]",
      count: 2,
    });
  });

  test("a value appearing many times, at both ends of the text", () => {
    const text = Array.from({ length: 500 }, () => "correct-horse-battery").join(" x ");
    const redacted = redactor.redact(text);
    expect(redacted.count).toBe(500);
    expect(redacted.text).toBe(Array.from({ length: 500 }, () => "[redacted: DB_PASSWORD]").join(" x "));
  });

  test("two values with nothing between them are two placeholders", () => {
    expect(redactor.redact("correct-horse-batteryabcd1234")).toEqual({ text: "[redacted: DB_PASSWORD][redacted: EIGHT]", count: 2 });
  });

  test("overlapping values: one inside another, and one starting inside another, leave no part of either", () => {
    const overlapping = new Redactor([
      { name: "INNER_KEY", value: "battery-staple" },
      { name: "OUTER_KEY", value: "horse-battery-staple" },
      { name: "TAIL_KEY", value: "staple-and-glue" },
    ]);
    expect(overlapping.redact("[horse-battery-staple]")).toEqual({ text: "[[redacted: OUTER_KEY]]", count: 1 });
    expect(overlapping.redact("<horse-battery-staple-and-glue>")).toEqual({ text: "<[redacted: OUTER_KEY]>", count: 1 });
    expect(overlapping.redact("battery-staple")).toEqual({ text: "[redacted: INNER_KEY]", count: 1 });
  });

  test("a value is found as JSON writes it inside a string too", () => {
    const quoted = new Redactor([{ name: "API_TOKEN", value: 'pa"ss\\word-long' }]);
    expect(quoted.redact(JSON.stringify({ token: 'pa"ss\\word-long' }))).toEqual({ text: '{"token":"[redacted: API_TOKEN]"}', count: 1 });
  });

  test("characters regular expressions read as syntax are plain in a value", () => {
    const odd = new Redactor([{ name: "AUTH", value: "a.b*c+d?(e)[f]{g}|h^$\\" }]);
    expect(odd.redact("x a.b*c+d?(e)[f]{g}|h^$\\ y aXb*c+d?(e)[f]{g}|h^$\\")).toEqual({ text: "x [redacted: AUTH] y aXb*c+d?(e)[f]{g}|h^$\\", count: 1 });
  });

  test("an encoding of a value is not found: base64, hex and the value reversed pass, as the README says", () => {
    const value = "correct-horse-battery";
    for (const encoded of [Buffer.from(value).toString("base64"), Buffer.from(value).toString("hex"), [...value].reverse().join("")]) {
      expect(redactor.redact(`pw=${encoded}`)).toEqual({ text: `pw=${encoded}`, count: 0 });
    }
  });

  test("a structured result's keys are redacted as its strings are; two keys that redact alike are both kept", () => {
    const result = JSON.parse('{"correct-horse-battery": 1, "[redacted: DB_PASSWORD]": 2, "abcd1234": {"abcd1234": "x"}, "__proto__": {"kept": true}}');
    const { value, count } = redactor.redactValue(result);
    expect(value).toEqual(JSON.parse('{"[redacted: DB_PASSWORD]": 1, "[redacted: DB_PASSWORD] #2": 2, "[redacted: EIGHT]": {"[redacted: EIGHT]": "x"}, "__proto__": {"kept": true}}'));
    expect(Object.keys(value)).toEqual(["[redacted: DB_PASSWORD]", "[redacted: DB_PASSWORD] #2", "[redacted: EIGHT]", "__proto__"]);
    expect(JSON.stringify(value)).not.toContain("correct-horse-battery");
    expect(count).toBe(3);
  });

  test("a structured result's strings are redacted wherever they are", () => {
    expect(redactor.redactValue({ rows: [{ password: "correct-horse-battery", n: 1 }], note: "abcd1234" })).toEqual({
      value: { rows: [{ password: "[redacted: DB_PASSWORD]", n: 1 }], note: "[redacted: EIGHT]" },
      count: 2,
    });
  });
});

describe("a secret cut in two by a capped output", () => {
  const redactor = new Redactor([{ name: "DB_PASSWORD", value: "correct-horse-battery" }]);
  const saved = `\n${resultCutLine(1000, ".plugboard/results/c1.txt")}\n`;
  const counted = `\n${charactersCutLine(1000)}\n`;

  test("its head before the cut line and its tail after it are redacted, whichever line the tool wrote", () => {
    for (const line of [saved, counted]) {
      expect(redactor.redact(`pw=correct-hor${line}se-battery\nexit code: 0`)).toEqual({ text: `pw=[redacted: DB_PASSWORD]${line}[redacted: DB_PASSWORD]\nexit code: 0`, count: 2 });
      // Four characters are enough to be taken.
      expect(redactor.redact(`pw=corr${line}tery`).text).toBe(`pw=[redacted: DB_PASSWORD]${line}[redacted: DB_PASSWORD]`);
    }
  });

  test("its head before the end of a line cut short (read_file's long lines)", () => {
    const mark = lineCutMark(12);
    expect(redactor.redact(`{"pw":"correct-horse-bat${mark}\nnext line`)).toEqual({ text: `{"pw":"[redacted: DB_PASSWORD]${mark}\nnext line`, count: 1 });
  });

  test("a well-known token's head before a cut is known by its prefix; a word that starts alike is left", () => {
    const none = new Redactor();
    for (const line of [saved, counted, lineCutMark(40)]) {
      expect(none.redact(`tok=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3${line}`).text).toBe(`tok=[redacted: GitHub token]${line}`);
      expect(none.redact(`key: sk-ant-api03-AbCdEf${line}`).text).toBe(`key: [redacted: Anthropic key]${line}`);
    }
    for (const text of [`pip install sk-learn${saved}`, `my_ghp_A1b2C3d4E5f6${saved}`, `ghp_A1b2C3d4E5f6 and more${saved}`]) expect(none.redact(text)).toEqual({ text, count: 0 });
  });

  test("the head and tail of its JSON form too", () => {
    const quoted = new Redactor([{ name: "API_TOKEN", value: 'pa"ss\\word-long' }]);
    expect(quoted.redact(`{"token":"pa\\"ss${saved}`).text).toBe(`{"token":"[redacted: API_TOKEN]${saved}`);
  });

  test("ordinary text beside the line is left: three characters of a secret, words that start none, a head away from the line", () => {
    for (const text of [`pw=cor${saved}ery`, `the horse${saved}farm battery`, `correct-hor and more${saved}done`]) {
      expect(redactor.redact(text)).toEqual({ text, count: 0 });
    }
  });
});

describe("secretsOfEnv", () => {
  test("names that say KEY, TOKEN, SECRET, PASSWORD or AUTH, in any case; values of 8 characters or more", () => {
    const variables = {
      OPENAI_API_KEY: "sk-0123456789",
      github_token: "tok-0123456789",
      ClientSecret: "secret-0123",
      DB_PASSWORD: "hunter2hunter2",
      OAUTH_CALLBACK: "http://localhost:9000/cb",
      SHORT_TOKEN: "abc",
      PORT: "8080808080",
      DATABASE_URL: "postgres://user:pw@host/db",
    };
    expect(secretsOfEnv(variables).map(({ name }) => name)).toEqual(["OPENAI_API_KEY", "github_token", "ClientSecret", "DB_PASSWORD", "OAUTH_CALLBACK"]);
  });
});
