/**
 * The results of `pending`, in order, once all have settled; if any failed, those that
 * succeeded are closed (with `close`) and the first failure in order is thrown.
 */
export async function allOrNothing<T>(pending: readonly Promise<T>[], close?: (done: T) => Promise<void>): Promise<T[]> {
  const outcomes = await Promise.allSettled(pending);
  const done = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed === undefined) return done;
  if (close !== undefined) await Promise.all(done.map(close));
  throw failed.reason;
}
