import { rewriteSchema } from "@plugboard/core";
import { manyTools } from "@plugboard/test-helpers";
const schemas = manyTools(500).map((t: { inputSchema: Record<string, unknown> }) => JSON.parse(JSON.stringify({ ...t.inputSchema, additionalProperties: false })));
for (const d of ["gemini", "openai-strict", "openai"] as const) {
  for (let i = 0; i < 100; i++) schemas.map((s: Record<string, unknown>) => rewriteSchema(s, d));
  const c = process.cpuUsage();
  for (let i = 0; i < 200; i++) schemas.map((s: Record<string, unknown>) => rewriteSchema(s, d));
  const u = process.cpuUsage(c);
  console.log(d, ((u.user + u.system) / 1000 / 200).toFixed(2), "ms cpu");
}
