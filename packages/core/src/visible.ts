/** Text shown on a person's terminal that came from elsewhere (a plugin, a tool's result). */

/**
 * `text` with its control characters (ESC, BEL, CR, DEL, the C1 range …; tab and newline
 * kept) written out as `\xNN`, so a terminal shows them instead of obeying them: what a
 * plugin logs or a tool returns cannot set the terminal's title, write its clipboard or move
 * its cursor.
 *
 * @example visible("a\u001b]0;x\u0007") // "a\\x1b]0;x\\x07"
 */
export function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is matched
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
