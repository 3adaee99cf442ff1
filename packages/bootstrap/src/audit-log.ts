/**
 * The audit log: one JSON line per call, appended. The file is opened once with `O_APPEND`
 * and each line goes out in one `write`, so several processes appending to one file never
 * interleave their lines.
 */
import { openSync, writeSync } from "node:fs";
import type { AuditSink } from "@plugboard/core";
import { configErrors } from "./messages.ts";

/**
 * Opens (creating if needed) the audit log at `path` and returns the sink that appends to it.
 * Throws `PlugboardError` (`CONFIG_INVALID`) when it cannot be opened: no unrecorded calls.
 *
 * @example const audit = openAuditLog("/app/audit.jsonl", "/app/plugboard.json");
 */
export function openAuditLog(path: string, configPath: string): AuditSink {
  let fd: number;
  try {
    fd = openSync(path, "a");
  } catch (error) {
    throw configErrors.auditLog(path, configPath, (error as NodeJS.ErrnoException).code ?? String(error));
  }
  return (record) => {
    writeSync(fd, `${JSON.stringify(record)}\n`);
  };
}
