/**
 * The audit log: one JSON line per call, one per connection a narrowed `network` grant
 * asked its egress proxy for (`"event": "network"`), and one per thing a confined call left
 * behind that the person's tools would run (`"event": "leftover"`), appended. The file is opened once with `O_APPEND`
 * and each line goes out in one `write`, so several processes appending to one file never
 * interleave their lines.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { AuditSink } from "@plugboard/runtime";
import { configErrors } from "@plugboard/config/messages";
import type { EgressRecord } from "@plugboard/sandbox";
import type { Leftover } from "@plugboard/sandbox/leftovers";

/** One thing a call left behind (leftovers.ts), with the call it was found after. */
export type LeftoverRecord = Leftover & { readonly ts: string; readonly event: "leftover"; readonly plugin: string; readonly tool: string; readonly callId: string };

/**
 * An open audit log: `write` appends one record; `close` releases the file (safe to call
 * twice). A call that finishes after `close` (its app shutting down meanwhile) is still
 * recorded: the line is appended through a file opened for it alone.
 */
export interface AuditLog {
  readonly write: AuditSink;
  /** Appends one connection's record. */
  readonly connection: (record: EgressRecord) => void;
  /** Appends the record of one thing a confined call left behind that the person's tools would run (`"event": "leftover"`). */
  readonly leftover: (record: LeftoverRecord) => void;
  close(): void;
}

/**
 * Opens (creating if needed) the audit log at `path`. Throws `PlugboardError`
 * (`CONFIG_INVALID`) when it cannot be opened: no unrecorded calls.
 *
 * @example const audit = openAuditLog("/app/audit.jsonl", "/app/plugboard.json");
 */
export function openAuditLog(path: string, configPath: string): AuditLog {
  let fd: number | undefined;
  try {
    fd = openSync(path, "a");
  } catch (error) {
    throw configErrors.auditLog(path, configPath, (error as NodeJS.ErrnoException).code ?? String(error));
  }
  const append = (record: object) => {
    const line = `${JSON.stringify(record)}\n`;
    if (fd !== undefined) {
      writeSync(fd, line);
      return;
    }
    const late = openSync(path, "a");
    try {
      writeSync(late, line);
    } finally {
      closeSync(late);
    }
  };
  return {
    write: append,
    connection: append,
    leftover: append,
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
