/** Ctrl-C handling: the first one calls the handler, a second one exits at once with 130. */

/** Calls `handler` on SIGINT until the returned function is called. */
export function onInterrupt(handler: () => void): () => void {
  let count = 0;
  const listener = () => {
    count++;
    if (count > 1) process.exit(130);
    handler();
  };
  process.on("SIGINT", listener);
  return () => {
    process.off("SIGINT", listener);
  };
}
