/** The one export of `marked-terminal` the CLI uses (the package ships no types). */
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked";

  /** Options of its renderer (README: "Options"); those the CLI sets. */
  export interface TerminalRendererOptions {
    readonly width?: number;
    readonly emoji?: boolean;
    readonly tab?: number;
    readonly reflowText?: boolean;
    readonly showSectionPrefix?: boolean;
  }

  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
