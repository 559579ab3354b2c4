/**
 * A store's `open()`: runs `prepare` once and hands every caller the same promise, except after a
 * failure, which is forgotten so that the next call tries again (the database may be back by then).
 */
export function openOnce(prepare: () => Promise<void>): () => Promise<void> {
  let opening: Promise<void> | undefined;
  return () =>
    (opening ??= prepare().catch((error: unknown) => {
      opening = undefined;
      throw error;
    }));
}
