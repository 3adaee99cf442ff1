import { expect, test } from "bun:test";
import { join } from "node:path";

test("importing @plugboard/web prints nothing, starts nothing and exits at once", () => {
  const probe = `const web = await import(${JSON.stringify(join(import.meta.dir, "index.ts"))}); process.stderr.write(String(Object.keys(web).length));`;
  const child = Bun.spawnSync(["bun", "-e", probe], { cwd: join(import.meta.dir, ".."), timeout: 20_000 });
  expect(child.exitCode).toBe(0);
  expect(child.stdout.toString()).toBe("");
  expect(Number(child.stderr.toString())).toBeGreaterThan(5);
});
